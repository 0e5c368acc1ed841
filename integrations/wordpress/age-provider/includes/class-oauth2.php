<?php
/**
 * The OAuth2 mode: the authorization-code flow from the server, with a fresh `state` and PKCE (S256) verifier per
 * visitor kept in a signed cookie, the `state` (and RFC 9207 `iss`) checked in constant time at the callback, the code
 * exchanged with the client's credentials, and the result read from Resources as a signed token, verified like the
 * checker's.
 *
 * @package AgeProvider
 */

declare(strict_types=1);

if (!defined('ABSPATH')) {
	exit;
}

final class Age_Provider_OAuth2 {
	/** Seconds a visitor has to finish the check before the flow's cookie lapses. */
	private const FLOW_SECONDS = 900;

	public static function start(): void {
		if (Age_Provider_Settings::MODE_OAUTH2 !== Age_Provider_Settings::mode()) {
			self::fail(__('Age verification is not set up for this site.', 'age-provider'), home_url('/'));
		}
		$return_to = isset($_GET['return_to']) && is_string($_GET['return_to']) ? Age_Provider_Return_Address::sanitize(wp_unslash($_GET['return_to'])) : home_url('/');
		$metadata  = Age_Provider_Http::metadata();
		if (is_wp_error($metadata) || !is_string($metadata['authorization_endpoint'] ?? null)) {
			self::fail(__('The age check service cannot be reached right now. Please try again later.', 'age-provider'), $return_to);
		}
		$state    = Age_Provider_Jwt::base64url_encode(random_bytes(32));
		$verifier = Age_Provider_Jwt::base64url_encode(random_bytes(32));
		Age_Provider_Pass::write(Age_Provider_Pass::FLOW_COOKIE, 'flow', array('state' => $state, 'verifier' => $verifier, 'return_to' => $return_to, 'exp' => time() + self::FLOW_SECONDS), time() + self::FLOW_SECONDS);
		$language = substr(determine_locale(), 0, 2);
		$query    = array(
			'client_id'             => Age_Provider_Settings::get('client_id'),
			'redirect_uri'          => Age_Provider_Settings::redirect_uri(),
			'response_type'         => 'code',
			'scope'                 => 'read',
			'state'                 => $state,
			'code_challenge'        => Age_Provider_Jwt::base64url_encode(hash('sha256', $verifier, true)),
			'code_challenge_method' => 'S256',
		);
		if (in_array($language, array('de', 'en', 'es', 'fr', 'it', 'pt'), true)) {
			$query['language'] = $language;
		}
		wp_redirect($metadata['authorization_endpoint'] . '?' . http_build_query($query, '', '&', PHP_QUERY_RFC3986), 303, 'Age Provider');
	}

	public static function callback(): void {
		$flow = Age_Provider_Pass::read(Age_Provider_Pass::FLOW_COOKIE, 'flow');
		Age_Provider_Pass::forget(Age_Provider_Pass::FLOW_COOKIE);
		$param = static fn(string $name): string => isset($_GET[$name]) && is_string($_GET[$name]) ? wp_unslash($_GET[$name]) : '';
		if (null === $flow || !is_string($flow['state'] ?? null) || !hash_equals($flow['state'], $param('state'))) {
			self::fail(__('This verification link has expired or was not started here. Please start again.', 'age-provider'), home_url('/'));
		}
		$return_to = Age_Provider_Return_Address::sanitize((string) ($flow['return_to'] ?? ''));
		if ('' !== $param('error')) {
			self::fail(__('The age check was not completed.', 'age-provider'), $return_to);
		}
		$metadata = Age_Provider_Http::metadata();
		if (is_wp_error($metadata) || !is_string($metadata['token_endpoint'] ?? null)) {
			self::fail(__('The age check service cannot be reached right now. Please try again later.', 'age-provider'), $return_to);
		}
		// RFC 9207: a code must come from our issuer, not from another server the visitor was sent through.
		if ('' !== $param('iss') && !hash_equals($metadata['issuer'], $param('iss'))) {
			self::fail(__('The age check could not be confirmed. Please try again.', 'age-provider'), $return_to);
		}
		$result = self::redeem($param('code'), (string) $flow['verifier'], $metadata);
		if (is_wp_error($result)) {
			self::fail(__('The age check could not be confirmed. Please try again.', 'age-provider'), $return_to);
		}
		Age_Provider_Pass::grant('verified', (int) $result['exp']);
		wp_safe_redirect($return_to, 303, 'Age Provider');
	}

	/**
	 * The token exchange, then Resources as a signed token addressed to our client id.
	 *
	 * @param array<string, mixed> $metadata
	 * @return array<string, mixed>|WP_Error
	 */
	private static function redeem(string $code, string $verifier, array $metadata) {
		$client_id = Age_Provider_Settings::get('client_id');
		$response  = wp_remote_post($metadata['token_endpoint'], array(
			'timeout'     => 10,
			'redirection' => 0,
			'headers'     => array('Authorization' => 'Basic ' . base64_encode(rawurlencode($client_id) . ':' . rawurlencode(Age_Provider_Settings::client_secret())), 'Accept' => 'application/json'),
			'body'        => array('grant_type' => 'authorization_code', 'code' => $code, 'redirect_uri' => Age_Provider_Settings::redirect_uri(), 'code_verifier' => $verifier),
		));
		$token = Age_Provider_Http::json_of($response, $metadata['token_endpoint']);
		if (is_wp_error($token)) {
			return $token;
		}
		if (200 !== $token['_status'] || !is_string($token['access_token'] ?? null)) {
			return new WP_Error('token_refused', is_string($token['error'] ?? null) ? $token['error'] : 'token request refused');
		}
		$resources_url = is_string($metadata['resources_endpoint'] ?? null) ? $metadata['resources_endpoint'] : Age_Provider_Settings::service_url() . '/v1/oauth2/resources';
		$resources     = wp_remote_get($resources_url, array(
			'timeout'     => 10,
			'redirection' => 0,
			'headers'     => array('Authorization' => 'Bearer ' . $token['access_token'], 'Accept' => 'application/jwt'),
		));
		if (is_wp_error($resources) || 200 !== (int) wp_remote_retrieve_response_code($resources)) {
			return new WP_Error('resources_refused', 'Resources did not answer');
		}
		return Age_Provider_Jwt::verify_result(trim(wp_remote_retrieve_body($resources)), $client_id);
	}

	/** Back to the page with a message, never to another site. */
	private static function fail(string $message, string $return_to): void {
		wp_die(
			'<p>' . esc_html($message) . '</p><p><a href="' . esc_url($return_to) . '">' . esc_html__('Back', 'age-provider') . '</a></p>',
			esc_html__('Age verification', 'age-provider'),
			array('response' => 400)
		);
	}
}
