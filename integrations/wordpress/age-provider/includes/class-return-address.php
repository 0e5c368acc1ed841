<?php
/**
 * Where a visitor goes after the check: only this site's own pages. Anything else (another host, a
 * protocol-relative or backslashed address, a non-http scheme) becomes the home page.
 *
 * @package AgeProvider
 */

declare(strict_types=1);

if (!defined('ABSPATH')) {
	exit;
}

final class Age_Provider_Return_Address {
	public static function sanitize(string $address): string {
		$home = home_url('/');
		if ('' === $address || preg_match('/[\x00-\x20\x7f\\\\]/', $address)) {
			return $home;
		}
		$target = wp_parse_url($address);
		$own    = wp_parse_url($home);
		if (!is_array($target) || !is_array($own) || !isset($target['scheme'], $target['host'])) {
			return $home;
		}
		$same_origin = strtolower($target['scheme']) === strtolower($own['scheme'])
			&& strtolower($target['host']) === strtolower($own['host'])
			&& ($target['port'] ?? null) === ($own['port'] ?? null);
		$own_path    = $own['path'] ?? '/';
		$path        = $target['path'] ?? '/';
		if (!$same_origin || !str_starts_with(trailingslashit($path), trailingslashit($own_path)) || isset($target['user'])) {
			return $home;
		}
		return $address;
	}

	/** The address of the page being served now, as the visitor asked for it. */
	public static function current(): string {
		$uri = isset($_SERVER['REQUEST_URI']) && is_string($_SERVER['REQUEST_URI']) ? wp_unslash($_SERVER['REQUEST_URI']) : '/';
		$own = wp_parse_url(home_url('/'));
		$origin = ($own['scheme'] ?? 'http') . '://' . ($own['host'] ?? '') . (isset($own['port']) ? ':' . $own['port'] : '');
		return self::sanitize($origin . '/' . ltrim($uri, '/'));
	}
}
