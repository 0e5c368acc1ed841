<?php
/**
 * The plugin's requests to the service: its metadata (RFC 8414) and its JWKS, each cached for an hour, and the
 * back-channel calls. Every failure is a WP_Error whose message says in plain words what went wrong.
 *
 * @package AgeProvider
 */

declare(strict_types=1);

if (!defined('ABSPATH')) {
	exit;
}

final class Age_Provider_Http {
	private const CACHE_SECONDS = HOUR_IN_SECONDS;
	private const TIMEOUT       = 10;

	/**
	 * GET a JSON document.
	 *
	 * @return array<string, mixed>|WP_Error
	 */
	public static function get_json(string $url, array $headers = array()) {
		$response = wp_remote_get($url, array('timeout' => self::TIMEOUT, 'redirection' => 0, 'headers' => $headers + array('Accept' => 'application/json')));
		return self::json_of($response, $url);
	}

	/**
	 * The answer's JSON body, or a WP_Error naming the address and what was wrong.
	 *
	 * @param array|WP_Error $response A wp_remote_* answer.
	 * @return array<string, mixed>|WP_Error
	 */
	public static function json_of($response, string $url) {
		if (is_wp_error($response)) {
			/* translators: 1: an address, 2: the network error */
			return new WP_Error('unreachable', sprintf(__('The service cannot be reached at %1$s: %2$s', 'age-provider'), $url, $response->get_error_message()));
		}
		$body = json_decode(wp_remote_retrieve_body($response), true);
		if (!is_array($body)) {
			/* translators: 1: an address, 2: an HTTP status code */
			return new WP_Error('not_json', sprintf(__('%1$s answered %2$d without a JSON document: is this the address of an Age Provider service?', 'age-provider'), $url, wp_remote_retrieve_response_code($response)));
		}
		$body['_status'] = (int) wp_remote_retrieve_response_code($response);
		return $body;
	}

	/**
	 * The service's authorization server metadata, checked to name the service's own address as issuer.
	 *
	 * @return array<string, mixed>|WP_Error
	 */
	public static function metadata(bool $fresh = false) {
		$service = Age_Provider_Settings::service_url();
		$cached  = get_transient('age_provider_metadata');
		if (!$fresh && is_array($cached) && ($cached['issuer'] ?? null) === $service) {
			return $cached;
		}
		$url      = $service . '/.well-known/oauth-authorization-server';
		$metadata = self::get_json($url);
		if (is_wp_error($metadata)) {
			return $metadata;
		}
		if (200 !== $metadata['_status'] || !is_string($metadata['issuer'] ?? null) || !is_string($metadata['jwks_uri'] ?? null)) {
			/* translators: %s: an address */
			return new WP_Error('not_metadata', sprintf(__('%s is not an Age Provider service: it has no OAuth2 metadata document.', 'age-provider'), $service));
		}
		if ($metadata['issuer'] !== $service) {
			/* translators: 1: the address in the settings, 2: the address the service names */
			return new WP_Error('wrong_issuer', sprintf(__('The service calls itself %2$s, not %1$s: enter exactly %2$s as its address.', 'age-provider'), $service, $metadata['issuer']));
		}
		set_transient('age_provider_metadata', $metadata, self::CACHE_SECONDS);
		return $metadata;
	}

	/**
	 * The service's public signing keys. A token naming an unknown kid fetches them again (a rotation), at most once
	 * a minute.
	 *
	 * @return array<int, array<string, mixed>>|WP_Error
	 */
	public static function jwks(bool $fresh = false) {
		$cached = get_transient('age_provider_jwks');
		if (is_array($cached) && ($cached['issuer'] ?? null) === Age_Provider_Settings::service_url()
			&& (!$fresh || time() - (int) ($cached['fetched'] ?? 0) < MINUTE_IN_SECONDS)) {
			return $cached['keys'];
		}
		$metadata = self::metadata();
		if (is_wp_error($metadata)) {
			return $metadata;
		}
		$jwks = self::get_json($metadata['jwks_uri']);
		if (is_wp_error($jwks)) {
			return $jwks;
		}
		if (200 !== $jwks['_status'] || !is_array($jwks['keys'] ?? null)) {
			return new WP_Error('no_jwks', __('The service publishes no signing keys: its key set could not be read.', 'age-provider'));
		}
		$keys = array_values(array_filter($jwks['keys'], 'is_array'));
		set_transient('age_provider_jwks', array('issuer' => Age_Provider_Settings::service_url(), 'keys' => $keys, 'fetched' => time()), self::CACHE_SECONDS);
		return $keys;
	}
}
