<?php
/**
 * "Check the connection": reads the service's metadata and keys, asks it about the public key, and in the OAuth2
 * mode probes the authorization and token endpoints, then says in plain words what is wrong.
 *
 * @package AgeProvider
 */

declare(strict_types=1);

if (!defined('ABSPATH')) {
	exit;
}

final class Age_Provider_Connection_Check {
	/**
	 * Findings in order, each [bool ok, string message]; the first failure that makes later steps meaningless ends it.
	 *
	 * @return array<int, array{0: bool, 1: string}>
	 */
	public static function run(): array {
		$findings = array();
		$service  = Age_Provider_Settings::service_url();
		$key      = Age_Provider_Settings::public_key();
		if ('' === $service || '' === $key) {
			return array(array(false, __('Enter the service address and the website\'s public key first, then save.', 'age-provider')));
		}
		delete_transient('age_provider_metadata');
		delete_transient('age_provider_jwks');
		$metadata = Age_Provider_Http::metadata(true);
		if (is_wp_error($metadata)) {
			return array(array(false, $metadata->get_error_message()));
		}
		/* translators: %s: the service's address */
		$findings[] = array(true, sprintf(__('The service answers at %s.', 'age-provider'), $service));

		$keys = Age_Provider_Http::jwks(true);
		if (is_wp_error($keys)) {
			$findings[] = array(false, $keys->get_error_message());
			return $findings;
		}
		$usable = array_filter($keys, static fn(array $jwk): bool => in_array($jwk['kty'] ?? '', array('RSA', 'EC', 'OKP'), true));
		$findings[] = $usable
			? array(true, __('Its signing keys can be read: signed results can be checked on this server.', 'age-provider'))
			: array(false, __('The service publishes no key this plugin can check signatures with (RSA, P-256 or Ed25519).', 'age-provider'));

		$requirement = Age_Provider_Http::get_json($service . '/v1/requirement?key=' . rawurlencode($key));
		if (is_wp_error($requirement)) {
			$findings[] = array(false, $requirement->get_error_message());
			return $findings;
		}
		if (404 === $requirement['_status']) {
			$findings[] = array(false, __('Wrong key: the service knows no website with this public key. Copy it again from the platform (your website\'s Integrate section); a regenerated key stops working at once.', 'age-provider'));
			return $findings;
		}
		if (200 !== $requirement['_status']) {
			/* translators: %d: an HTTP status code */
			$findings[] = array(false, sprintf(__('The service refused the question about this key (HTTP %d). Try again in a minute.', 'age-provider'), $requirement['_status']));
			return $findings;
		}
		$findings[] = array(true, __('The public key belongs to a website on this service.', 'age-provider'));
		$findings   = array_merge($findings, self::environment_findings());
		if (Age_Provider_Settings::MODE_OAUTH2 === Age_Provider_Settings::mode()) {
			$findings = array_merge($findings, self::oauth2_findings($metadata));
		}
		return $findings;
	}

	/** @return array<int, array{0: bool, 1: string}> */
	private static function environment_findings(): array {
		$home = wp_parse_url(home_url('/'));
		if ('TEST' === Age_Provider_Settings::environment() && 'production' === wp_get_environment_type()) {
			return array(array(false, __('TEST key on a LIVE site: with a TEST key every visitor can pass by choosing the sandbox\'s result. Use the website\'s LIVE key (pk_live_…) here, or set WP_ENVIRONMENT_TYPE to staging on a test copy.', 'age-provider')));
		}
		if ('LIVE' === Age_Provider_Settings::environment() && 'https' !== ($home['scheme'] ?? '')) {
			return array(array(false, __('A LIVE key works only on https pages, and this site\'s address is not https.', 'age-provider')));
		}
		/* translators: %s: LIVE or TEST */
		return array(array(true, sprintf(__('The key is a %s key, which suits this site.', 'age-provider'), Age_Provider_Settings::environment())));
	}

	/**
	 * @param array<string, mixed> $metadata
	 * @return array<int, array{0: bool, 1: string}>
	 */
	private static function oauth2_findings(array $metadata): array {
		$client_id = Age_Provider_Settings::get('client_id');
		if ('' === $client_id || '' === Age_Provider_Settings::client_secret()) {
			return array(array(false, __('Enter the OAuth2 client id and client secret from the platform (your website\'s Settings, OAuth2), then save.', 'age-provider')));
		}
		$redirect_uri = Age_Provider_Settings::redirect_uri();
		// An authorization request the service refuses on its own page when the client or the redirect URI is wrong.
		$probe = wp_remote_get($metadata['authorization_endpoint'] . '?' . http_build_query(array(
			'client_id'             => $client_id,
			'redirect_uri'          => $redirect_uri,
			'response_type'         => 'code',
			'scope'                 => 'read',
			'state'                 => 'connection-check',
			'code_challenge'        => Age_Provider_Jwt::base64url_encode(hash('sha256', 'connection-check', true)),
			'code_challenge_method' => 'S256',
		), '', '&', PHP_QUERY_RFC3986), array('timeout' => 10, 'redirection' => 0));
		if (is_wp_error($probe)) {
			return array(array(false, $probe->get_error_message()));
		}
		$status = (int) wp_remote_retrieve_response_code($probe);
		if ($status >= 400) {
			$body = wp_remote_retrieve_body($probe);
			if (false !== stripos($body, 'redirect_uri')) {
				/* translators: %s: the redirect URI */
				return array(array(false, sprintf(__('Redirect URI not registered: add %s to your website\'s OAuth2 redirect URIs on the platform (Settings, OAuth2), exactly as written here.', 'age-provider'), $redirect_uri)));
			}
			return array(array(false, __('The service knows no OAuth2 client with this client id, or it is not enabled: copy it again from the platform.', 'age-provider')));
		}
		$findings = array(array(true, __('The client id is known and this site\'s redirect URI is registered.', 'age-provider')));
		$token    = wp_remote_post($metadata['token_endpoint'], array(
			'timeout'     => 10,
			'redirection' => 0,
			'headers'     => array('Authorization' => 'Basic ' . base64_encode(rawurlencode($client_id) . ':' . rawurlencode(Age_Provider_Settings::client_secret()))),
			'body'        => array('grant_type' => 'authorization_code', 'code' => 'connection-check', 'redirect_uri' => $redirect_uri),
		));
		$status = is_wp_error($token) ? 0 : (int) wp_remote_retrieve_response_code($token);
		$findings[] = 401 === $status
			? array(false, __('Wrong client secret: the service refused this client id and secret. Paste the secret again; if you no longer have it, regenerate it on the platform.', 'age-provider'))
			: (400 === $status
				? array(true, __('The client id and secret are accepted.', 'age-provider'))
				/* translators: %d: an HTTP status code */
				: array(false, sprintf(__('The token endpoint answered unexpectedly (HTTP %d).', 'age-provider'), $status)));
		return $findings;
	}
}
