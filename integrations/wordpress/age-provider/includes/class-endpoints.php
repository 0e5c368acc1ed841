<?php
/**
 * The plugin's own addresses, `/?age_provider=…` (the same whatever the permalink settings):
 * `requirement` and `unlock` take a signed token from gate.js and answer JSON; `start` and `callback` are the
 * OAuth2 flow's (class-oauth2.php).
 *
 * @package AgeProvider
 */

declare(strict_types=1);

if (!defined('ABSPATH')) {
	exit;
}

final class Age_Provider_Endpoints {
	/** parse_request: answers the plugin's addresses before WordPress looks for a post. */
	public static function dispatch(): void {
		$action = isset($_GET['age_provider']) && is_string($_GET['age_provider']) ? sanitize_key(wp_unslash($_GET['age_provider'])) : '';
		if ('' === $action || !Age_Provider_Settings::is_configured()) {
			return;
		}
		nocache_headers();
		header('Cache-Control: no-store, no-cache, must-revalidate, max-age=0, private');
		switch ($action) {
			case 'requirement':
				self::answer_token(array(self::class, 'requirement'));
				break;
			case 'unlock':
				self::answer_token(array(self::class, 'unlock'));
				break;
			case 'start':
				Age_Provider_OAuth2::start();
				break;
			case 'callback':
				Age_Provider_OAuth2::callback();
				break;
			default:
				return;
		}
		exit;
	}

	/** A POST from this site's own pages carrying `token`; anything else is refused and changes nothing. */
	private static function answer_token(callable $handle): void {
		if ('POST' !== ($_SERVER['REQUEST_METHOD'] ?? '')) {
			header('Allow: POST');
			wp_send_json(array('error' => 'method_not_allowed'), 405);
		}
		$origin = isset($_SERVER['HTTP_ORIGIN']) && is_string($_SERVER['HTTP_ORIGIN']) ? wp_unslash($_SERVER['HTTP_ORIGIN']) : '';
		$own    = wp_parse_url(home_url('/'));
		$mine   = ($own['scheme'] ?? '') . '://' . ($own['host'] ?? '') . (isset($own['port']) ? ':' . $own['port'] : '');
		if ('' !== $origin && !hash_equals(strtolower($mine), strtolower($origin))) {
			wp_send_json(array('error' => 'origin_not_allowed'), 403);
		}
		$token = isset($_POST['token']) && is_string($_POST['token']) ? trim(wp_unslash($_POST['token'])) : '';
		if ('' === $token) {
			wp_send_json(array('error' => 'invalid_request'), 400);
		}
		$handle($token);
	}

	/** A signed requirement answer from the visitor's browser: where no check is required, a short pass. */
	private static function requirement(string $token): void {
		$claims = Age_Provider_Jwt::verify_requirement($token);
		if (is_wp_error($claims)) {
			wp_send_json(array('error' => 'invalid_token', 'reason' => $claims->get_error_code()), 403);
		}
		if (false === $claims['required']) {
			Age_Provider_Pass::grant('not_required', min((int) $claims['exp'], time() + Age_Provider_Pass::NOT_REQUIRED_SECONDS));
		}
		wp_send_json(array('required' => $claims['required']));
	}

	/** The checker script's signed result, addressed to this site's public key. */
	private static function unlock(string $token): void {
		$claims = Age_Provider_Jwt::verify_result($token, Age_Provider_Settings::public_key());
		if (is_wp_error($claims)) {
			wp_send_json(array('error' => 'invalid_token', 'reason' => $claims->get_error_code()), 403);
		}
		Age_Provider_Pass::grant('verified', (int) $claims['exp']);
		wp_send_json(array('verified' => true));
	}
}
