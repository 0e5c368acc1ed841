<?php
/**
 * The plugin's own signed cookies: the visitor's pass (a verified result, or "no check required here") and the
 * OAuth2 flow's state. Each is base64url(JSON) . "." . HMAC-SHA256 under a key derived from the site's salts,
 * compared in constant time, and bound to the site's current public key: a new key asks every visitor again.
 *
 * @package AgeProvider
 */

declare(strict_types=1);

if (!defined('ABSPATH')) {
	exit;
}

final class Age_Provider_Pass {
	public const COOKIE      = 'age_provider_pass';
	public const FLOW_COOKIE = 'age_provider_flow';

	/** Seconds a visitor where no check is required is remembered: the signed requirement's own lifetime at most. */
	public const NOT_REQUIRED_SECONDS = 600;

	/** The pass of this request, once checked. @var array<string, mixed>|false|null */
	private static $current = null;

	/** Whether this visitor holds a valid pass for the current settings. */
	public static function holds(): bool {
		if (null === self::$current) {
			$pass           = self::read(self::COOKIE, 'pass');
			self::$current  = is_array($pass) ? $pass : false;
		}
		return false !== self::$current;
	}

	/** Gives the visitor a pass until `$expires` (epoch seconds): never longer than the result it stands for. */
	public static function grant(string $kind, int $expires): void {
		$value = array('kind' => $kind, 'exp' => $expires);
		self::write(self::COOKIE, 'pass', $value, $expires);
		self::$current = $value + array('key' => self::key_binding());
	}

	/**
	 * @param array<string, mixed> $value
	 */
	public static function write(string $name, string $purpose, array $value, int $expires): void {
		$value['key'] = self::key_binding();
		$payload      = Age_Provider_Jwt::base64url_encode((string) wp_json_encode($value));
		$cookie       = $payload . '.' . Age_Provider_Jwt::base64url_encode(self::mac($purpose, $payload));
		self::set_cookie($name, $cookie, $expires);
	}

	/**
	 * The cookie's value if its MAC, expiry and key binding hold.
	 *
	 * @return array<string, mixed>|null
	 */
	public static function read(string $name, string $purpose): ?array {
		$cookie = isset($_COOKIE[$name]) && is_string($_COOKIE[$name]) ? wp_unslash($_COOKIE[$name]) : '';
		$parts  = explode('.', $cookie);
		if (2 !== count($parts)) {
			return null;
		}
		$mac = Age_Provider_Jwt::base64url_decode($parts[1]);
		if (null === $mac || !hash_equals(self::mac($purpose, $parts[0]), $mac)) {
			return null;
		}
		$value = json_decode((string) Age_Provider_Jwt::base64url_decode($parts[0]), true);
		if (!is_array($value) || !is_int($value['exp'] ?? null) || $value['exp'] <= time()) {
			return null;
		}
		return hash_equals(self::key_binding(), (string) ($value['key'] ?? '')) ? $value : null;
	}

	public static function forget(string $name): void {
		self::set_cookie($name, '', time() - YEAR_IN_SECONDS);
	}

	private static function mac(string $purpose, string $payload): string {
		return hash_hmac('sha256', $payload, Age_Provider_Settings::derived_key('cookie:' . $purpose), true);
	}

	/** The current public key and service, hashed: a pass for another key or service is not this site's. */
	private static function key_binding(): string {
		return substr(hash('sha256', Age_Provider_Settings::service_url() . ' ' . Age_Provider_Settings::public_key() . ' ' . Age_Provider_Settings::mode()), 0, 16);
	}

	private static function set_cookie(string $name, string $value, int $expires): void {
		$path = defined('COOKIEPATH') && '' !== COOKIEPATH ? COOKIEPATH : '/';
		setcookie($name, $value, array(
			'expires'  => $expires,
			'path'     => $path,
			'domain'   => defined('COOKIE_DOMAIN') && COOKIE_DOMAIN ? COOKIE_DOMAIN : '',
			'secure'   => is_ssl(),
			'httponly' => true,
			// Lax: the cookie must come along when the service sends the visitor back to the callback.
			'samesite' => 'Lax',
		));
		if ('' === $value) {
			unset($_COOKIE[$name]);
		}
	}
}
