<?php
/**
 * The plugin's settings: one option, read through typed accessors. The OAuth2 client secret is stored sealed
 * (AES-256-GCM under a key derived from the site's salts), never in clear.
 *
 * @package AgeProvider
 */

declare(strict_types=1);

if (!defined('ABSPATH')) {
	exit;
}

final class Age_Provider_Settings {
	public const OPTION = 'age_provider_settings';

	public const MODE_CHECKER = 'checker';
	public const MODE_OAUTH2  = 'oauth2';

	public const SCOPE_SITE   = 'site';
	public const SCOPE_CHOSEN = 'chosen';

	/** Protected pages carry noindex, or show search engines and visitors the title and the hand-written excerpt. */
	public const INDEX_NONE   = 'noindex';
	public const INDEX_TEASER = 'teaser';

	/** The service's public keys: `pk_live_…` or `pk_test_…` (docs/checker.md). */
	public const PUBLIC_KEY_SHAPE = '/^pk_(live|test)_[A-Za-z0-9_-]{1,200}$/';

	private const DEFAULTS = array(
		'service_url'   => '',
		'public_key'    => '',
		'mode'          => self::MODE_CHECKER,
		'client_id'     => '',
		'client_secret' => '',
		'scope'         => self::SCOPE_CHOSEN,
		'indexing'      => self::INDEX_NONE,
	);

	/** Stored at activation, so the Settings API's first save is an update. */
	public static function add_defaults(): void {
		add_option(self::OPTION, self::DEFAULTS);
	}

	/** @return array<string, string> */
	public static function all(): array {
		$stored = get_option(self::OPTION, array());
		$values = is_array($stored) ? $stored : array();
		$merged = array();
		foreach (self::DEFAULTS as $name => $default) {
			$merged[$name] = isset($values[$name]) && is_string($values[$name]) ? $values[$name] : $default;
		}
		return $merged;
	}

	public static function get(string $name): string {
		return self::all()[$name] ?? '';
	}

	/** The service's address without a trailing slash: also its issuer. */
	public static function service_url(): string {
		return untrailingslashit(self::get('service_url'));
	}

	public static function public_key(): string {
		return self::get('public_key');
	}

	/** LIVE or TEST, from the public key's prefix; '' when no key is set. */
	public static function environment(): string {
		if (!preg_match(self::PUBLIC_KEY_SHAPE, self::public_key(), $match)) {
			return '';
		}
		return 'live' === $match[1] ? 'LIVE' : 'TEST';
	}

	public static function mode(): string {
		return self::MODE_OAUTH2 === self::get('mode') ? self::MODE_OAUTH2 : self::MODE_CHECKER;
	}

	public static function scope(): string {
		return self::SCOPE_SITE === self::get('scope') ? self::SCOPE_SITE : self::SCOPE_CHOSEN;
	}

	public static function indexing(): string {
		return self::INDEX_TEASER === self::get('indexing') ? self::INDEX_TEASER : self::INDEX_NONE;
	}

	/** Whether the plugin has what it needs to check visitors in the chosen mode. */
	public static function is_configured(): bool {
		if ('' === self::service_url() || '' === self::environment()) {
			return false;
		}
		return self::MODE_CHECKER === self::mode() || ('' !== self::get('client_id') && '' !== self::client_secret());
	}

	/** The OAuth2 redirect URI to register on the platform: fixed, whatever the permalink settings. */
	public static function redirect_uri(): string {
		return add_query_arg('age_provider', 'callback', home_url('/'));
	}

	/** A key for one purpose, derived from the site's salts (so a leaked database alone forges nothing). */
	public static function derived_key(string $purpose): string {
		return hash_hmac('sha256', 'age-provider:' . $purpose, wp_salt('auth'), true);
	}

	public static function seal_secret(string $secret): string {
		if ('' === $secret) {
			return '';
		}
		$nonce  = random_bytes(12);
		$tag    = '';
		$sealed = openssl_encrypt($secret, 'aes-256-gcm', self::derived_key('client-secret'), OPENSSL_RAW_DATA, $nonce, $tag);
		return false === $sealed ? '' : 'v1.' . base64_encode($nonce . $tag . $sealed);
	}

	/** The client secret in clear, for the token request only; '' when none is stored or the salts changed. */
	public static function client_secret(): string {
		$stored = self::get('client_secret');
		if (!str_starts_with($stored, 'v1.')) {
			return '';
		}
		$raw = base64_decode(substr($stored, 3), true);
		if (false === $raw || strlen($raw) < 29) {
			return '';
		}
		$opened = openssl_decrypt(substr($raw, 28), 'aes-256-gcm', self::derived_key('client-secret'), OPENSSL_RAW_DATA, substr($raw, 0, 12), substr($raw, 12, 16));
		return false === $opened ? '' : $opened;
	}

	/**
	 * The Settings API's sanitizer: every field checked, a bad one kept at its old value with an error the page shows.
	 *
	 * @param mixed $input The submitted fields.
	 * @return array<string, string>
	 */
	public static function sanitize($input): array {
		$old   = self::all();
		$input = is_array($input) ? wp_unslash($input) : array();
		$new   = $old;
		$text  = static fn(string $name): string => isset($input[$name]) && is_string($input[$name]) ? trim($input[$name]) : '';

		$url = untrailingslashit($text('service_url'));
		if ('' === $url || self::is_service_url($url)) {
			$new['service_url'] = $url;
		} else {
			add_settings_error(self::OPTION, 'service_url', __('The service address must be an https address (http only for localhost), without user name, query or fragment.', 'age-provider'));
		}

		$key = $text('public_key');
		if ('' === $key || preg_match(self::PUBLIC_KEY_SHAPE, $key)) {
			$new['public_key'] = $key;
		} else {
			add_settings_error(self::OPTION, 'public_key', __('The public key must start with pk_live_ or pk_test_, as the platform shows it.', 'age-provider'));
		}

		$new['mode']     = self::MODE_OAUTH2 === $text('mode') ? self::MODE_OAUTH2 : self::MODE_CHECKER;
		$new['scope']    = self::SCOPE_SITE === $text('scope') ? self::SCOPE_SITE : self::SCOPE_CHOSEN;
		$new['indexing'] = self::INDEX_TEASER === $text('indexing') ? self::INDEX_TEASER : self::INDEX_NONE;

		$client_id = $text('client_id');
		if (preg_match('/^[\x21-\x7e]{0,200}$/', $client_id)) {
			$new['client_id'] = $client_id;
		}
		// An empty secret field keeps the stored secret: it is never printed back, so the form cannot hold it. WordPress
		// sanitizes a first save twice (update_option, then add_option): the second pass gets the sealed value back.
		$sealed = $text('client_secret');
		if (str_starts_with($sealed, 'v1.')) {
			$new['client_secret'] = $sealed;
		}
		$secret = $text('new_client_secret');
		if ('' !== $secret) {
			$new['client_secret'] = self::seal_secret($secret);
		}
		if (isset($input['forget_secret'])) {
			$new['client_secret'] = '';
		}
		return $new;
	}

	/** An absolute https address (http for loopback hosts), no credentials, query or fragment. */
	public static function is_service_url(string $url): bool {
		$parts = wp_parse_url($url);
		if (!is_array($parts) || empty($parts['host']) || isset($parts['user']) || isset($parts['pass']) || isset($parts['query']) || isset($parts['fragment'])) {
			return false;
		}
		$scheme = strtolower($parts['scheme'] ?? '');
		return 'https' === $scheme || ('http' === $scheme && self::is_loopback_host($parts['host']));
	}

	public static function is_loopback_host(string $host): bool {
		$host = strtolower(trim($host, '[]'));
		return 'localhost' === $host || str_ends_with($host, '.localhost') || '::1' === $host || str_starts_with($host, '127.');
	}
}
