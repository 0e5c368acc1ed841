<?php
/**
 * Verifies the service's signed results (compact JWS) with PHP's openssl, against the service's JWKS: the signature
 * (RS256, ES256, and EdDSA where sodium is present), `typ`, `iss`, `aud`, `exp`, then the caller's own claims.
 * Anything else (alg "none", an HMAC algorithm, an unknown key, a malformed part) is refused.
 *
 * @package AgeProvider
 */

declare(strict_types=1);

if (!defined('ABSPATH')) {
	exit;
}

final class Age_Provider_Jwt {
	public const VERIFICATION_TYPE = 'age-verification+jwt';
	public const REQUIREMENT_TYPE  = 'age-requirement+jwt';

	/** Seconds of clock difference tolerated between this server and the service. */
	private const LEEWAY = 30;

	/**
	 * The claims of a verification result for this site (`aud` is the public key, or the client id for OAuth2),
	 * or a WP_Error saying why it is refused.
	 *
	 * @return array<string, mixed>|WP_Error
	 */
	public static function verify_result(string $token, string $audience) {
		$claims = self::verify($token, self::VERIFICATION_TYPE, $audience);
		if (is_wp_error($claims)) {
			return $claims;
		}
		if (true !== ($claims['verified'] ?? null)) {
			return new WP_Error('not_verified', 'the result does not say verified');
		}
		return self::check_environment($claims);
	}

	/**
	 * The claims of a signed requirement answer for this site's public key.
	 *
	 * @return array<string, mixed>|WP_Error
	 */
	public static function verify_requirement(string $token) {
		$claims = self::verify($token, self::REQUIREMENT_TYPE, Age_Provider_Settings::public_key());
		if (is_wp_error($claims)) {
			return $claims;
		}
		if (!is_bool($claims['required'] ?? null)) {
			return new WP_Error('malformed', 'the requirement has no required claim');
		}
		return self::check_environment($claims);
	}

	/** A TEST result never unlocks a site configured with its LIVE key, nor the other way round. */
	private static function check_environment(array $claims) {
		if (($claims['environment'] ?? null) !== Age_Provider_Settings::environment()) {
			return new WP_Error('wrong_environment', 'the result is from another environment than the site key');
		}
		return $claims;
	}

	/**
	 * @return array<string, mixed>|WP_Error
	 */
	public static function verify(string $token, string $type, string $audience) {
		$parts = explode('.', $token);
		if (3 !== count($parts) || strlen($token) > 16384) {
			return new WP_Error('malformed', 'not a compact JWS');
		}
		$header    = json_decode((string) self::base64url_decode($parts[0]), true);
		$claims    = json_decode((string) self::base64url_decode($parts[1]), true);
		$signature = self::base64url_decode($parts[2]);
		if (!is_array($header) || !is_array($claims) || null === $signature || '' === $signature) {
			return new WP_Error('malformed', 'a part of the token is not base64url JSON');
		}
		if (($header['typ'] ?? null) !== $type) {
			return new WP_Error('wrong_type', 'the token is not of the expected type');
		}
		$alg = $header['alg'] ?? null;
		if (!is_string($alg) || !in_array($alg, self::algorithms(), true) || !is_string($header['kid'] ?? null)) {
			return new WP_Error('wrong_algorithm', 'the token\'s algorithm is not accepted');
		}
		$jwk = self::key($header['kid']);
		if (is_wp_error($jwk)) {
			return $jwk;
		}
		if (!self::signature_valid($parts[0] . '.' . $parts[1], $signature, $alg, $jwk)) {
			return new WP_Error('bad_signature', 'the signature does not verify');
		}
		$now = time();
		if (($claims['iss'] ?? null) !== Age_Provider_Settings::service_url()) {
			return new WP_Error('wrong_issuer', 'the token comes from another issuer');
		}
		$aud = $claims['aud'] ?? null;
		if (!(is_string($aud) && hash_equals($audience, $aud)) && !(is_array($aud) && in_array($audience, $aud, true))) {
			return new WP_Error('wrong_audience', 'the token is addressed to another website');
		}
		if (!is_int($claims['exp'] ?? null) || $claims['exp'] + self::LEEWAY <= $now) {
			return new WP_Error('expired', 'the token has expired');
		}
		if (isset($claims['iat']) && (!is_int($claims['iat']) || $claims['iat'] - self::LEEWAY > $now)) {
			return new WP_Error('not_yet_valid', 'the token is issued in the future');
		}
		return $claims;
	}

	/** @return string[] */
	private static function algorithms(): array {
		return function_exists('sodium_crypto_sign_verify_detached') ? array('RS256', 'ES256', 'EdDSA') : array('RS256', 'ES256');
	}

	/**
	 * The service's public key with this kid; an unknown kid fetches the key set again once (a rotation).
	 *
	 * @return array<string, mixed>|WP_Error
	 */
	private static function key(string $kid) {
		foreach (array(false, true) as $fresh) {
			$keys = Age_Provider_Http::jwks($fresh);
			if (is_wp_error($keys)) {
				return $keys;
			}
			foreach ($keys as $jwk) {
				if (($jwk['kid'] ?? null) === $kid && 'enc' !== ($jwk['use'] ?? 'sig')) {
					return $jwk;
				}
			}
		}
		return new WP_Error('unknown_key', 'the token is signed with a key the service does not publish');
	}

	private static function signature_valid(string $input, string $signature, string $alg, array $jwk): bool {
		if (isset($jwk['alg']) && $jwk['alg'] !== $alg) {
			return false;
		}
		switch ($alg) {
			case 'RS256':
				$pem = 'RSA' === ($jwk['kty'] ?? null) ? self::rsa_pem($jwk) : null;
				return null !== $pem && 1 === openssl_verify($input, $signature, $pem, OPENSSL_ALGO_SHA256);
			case 'ES256':
				$pem = 'EC' === ($jwk['kty'] ?? null) && 'P-256' === ($jwk['crv'] ?? null) ? self::ec_pem($jwk) : null;
				$der = 64 === strlen($signature) ? self::ecdsa_der($signature) : null;
				return null !== $pem && null !== $der && 1 === openssl_verify($input, $der, $pem, OPENSSL_ALGO_SHA256);
			case 'EdDSA':
				$x = 'OKP' === ($jwk['kty'] ?? null) && 'Ed25519' === ($jwk['crv'] ?? null) ? self::base64url_decode((string) ($jwk['x'] ?? '')) : null;
				return null !== $x && 32 === strlen($x) && 64 === strlen($signature) && sodium_crypto_sign_verify_detached($signature, $input, $x);
		}
		return false;
	}

	public static function base64url_decode(string $text): ?string {
		if (!preg_match('/^[A-Za-z0-9_-]*$/', $text)) {
			return null;
		}
		$decoded = base64_decode(strtr($text, '-_', '+/'), true);
		return false === $decoded ? null : $decoded;
	}

	public static function base64url_encode(string $bytes): string {
		return rtrim(strtr(base64_encode($bytes), '+/', '-_'), '=');
	}

	// DER, just enough for a SubjectPublicKeyInfo and an ECDSA signature.

	private static function der(int $tag, string $content): string {
		$length = strlen($content);
		if ($length < 0x80) {
			return chr($tag) . chr($length) . $content;
		}
		$bytes = ltrim(pack('N', $length), "\0");
		return chr($tag) . chr(0x80 | strlen($bytes)) . $bytes . $content;
	}

	/** A DER INTEGER of an unsigned big-endian number. */
	private static function der_integer(string $bytes): string {
		$bytes = ltrim($bytes, "\0");
		if ('' === $bytes || ord($bytes[0]) > 0x7f) {
			$bytes = "\0" . $bytes;
		}
		return self::der(0x02, $bytes);
	}

	private static function pem(string $algorithm, string $key): string {
		$spki = self::der(0x30, self::der(0x30, $algorithm) . self::der(0x03, "\0" . $key));
		return "-----BEGIN PUBLIC KEY-----\n" . chunk_split(base64_encode($spki), 64, "\n") . "-----END PUBLIC KEY-----\n";
	}

	private static function rsa_pem(array $jwk): ?string {
		$n = self::base64url_decode((string) ($jwk['n'] ?? ''));
		$e = self::base64url_decode((string) ($jwk['e'] ?? ''));
		if (null === $n || null === $e || strlen($n) < 256 || '' === $e) {
			return null;
		}
		$rsa_encryption = self::der(0x06, "\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01") . self::der(0x05, '');
		return self::pem($rsa_encryption, self::der(0x30, self::der_integer($n) . self::der_integer($e)));
	}

	private static function ec_pem(array $jwk): ?string {
		$x = self::base64url_decode((string) ($jwk['x'] ?? ''));
		$y = self::base64url_decode((string) ($jwk['y'] ?? ''));
		if (null === $x || null === $y || 32 !== strlen($x) || 32 !== strlen($y)) {
			return null;
		}
		$ec_p256 = self::der(0x06, "\x2a\x86\x48\xce\x3d\x02\x01") . self::der(0x06, "\x2a\x86\x48\xce\x3d\x03\x01\x07");
		return self::pem($ec_p256, "\x04" . $x . $y);
	}

	/** JOSE's ECDSA signature (r || s) as the DER sequence openssl verifies. */
	private static function ecdsa_der(string $signature): string {
		return self::der(0x30, self::der_integer(substr($signature, 0, 32)) . self::der_integer(substr($signature, 32)));
	}
}
