<?php
/**
 * Removes everything the plugin stored: its settings, its cached service documents and its marks on posts and terms.
 *
 * @package AgeProvider
 */

declare(strict_types=1);

if (!defined('WP_UNINSTALL_PLUGIN')) {
	exit;
}

delete_option('age_provider_settings');
delete_transient('age_provider_metadata');
delete_transient('age_provider_jwks');
delete_post_meta_by_key('_age_provider_protected');
delete_metadata('term', 0, '_age_provider_protected', '', true);
