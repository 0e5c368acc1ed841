<?php
/**
 * Plugin Name:       Age Provider
 * Plugin URI:        https://github.com/age-provider/age-provider/blob/main/docs/wordpress.md
 * Description:       Age verification with an Age Provider service: protect the whole site, chosen posts, pages, categories and tags, or a part of a page. Nothing protected is sent before the check.
 * Version:           0.1.0
 * Requires at least: 6.1
 * Requires PHP:      8.2
 * License:           MIT
 * Text Domain:       age-provider
 * Domain Path:       /languages
 *
 * @package AgeProvider
 */

declare(strict_types=1);

if (!defined('ABSPATH')) {
	exit;
}

const AGE_PROVIDER_VERSION = '0.1.0';
const AGE_PROVIDER_FILE    = __FILE__;

require_once __DIR__ . '/includes/class-settings.php';
require_once __DIR__ . '/includes/class-http.php';
require_once __DIR__ . '/includes/class-jwt.php';
require_once __DIR__ . '/includes/class-pass.php';
require_once __DIR__ . '/includes/class-return-address.php';
require_once __DIR__ . '/includes/class-protection.php';
require_once __DIR__ . '/includes/class-gate.php';
require_once __DIR__ . '/includes/class-endpoints.php';
require_once __DIR__ . '/includes/class-oauth2.php';
require_once __DIR__ . '/includes/class-connection-check.php';
require_once __DIR__ . '/includes/class-admin.php';
require_once __DIR__ . '/includes/class-editor.php';

add_action('init', static function (): void {
	load_plugin_textdomain('age-provider', false, dirname(plugin_basename(AGE_PROVIDER_FILE)) . '/languages');
	Age_Provider_Gate::register();
	Age_Provider_Editor::register_blocks();
});
add_action('parse_request', array('Age_Provider_Endpoints', 'dispatch'), 0);
add_action('template_redirect', array('Age_Provider_Gate', 'guard_request'), 0);
Age_Provider_Protection::register_filters();

if (is_admin()) {
	Age_Provider_Admin::register();
	Age_Provider_Editor::register_admin();
}

register_activation_hook(__FILE__, array('Age_Provider_Settings', 'add_defaults'));
