<?php
/**
 * Settings → Age Provider: the settings form (the Settings API: its nonce and the manage_options capability) and the
 * "check the connection" button (its own nonce and capability check). The client secret is never printed back.
 *
 * @package AgeProvider
 */

declare(strict_types=1);

if (!defined('ABSPATH')) {
	exit;
}

final class Age_Provider_Admin {
	private const PAGE         = 'age-provider';
	private const CHECK_ACTION = 'age_provider_check';

	public static function register(): void {
		add_action('admin_menu', array(self::class, 'menu'));
		add_action('admin_init', array(self::class, 'settings'));
		add_action('admin_post_' . self::CHECK_ACTION, array(self::class, 'check'));
		add_filter('plugin_action_links_' . plugin_basename(AGE_PROVIDER_FILE), array(self::class, 'action_links'));
	}

	public static function menu(): void {
		add_options_page(__('Age Provider', 'age-provider'), __('Age Provider', 'age-provider'), 'manage_options', self::PAGE, array(self::class, 'page'));
	}

	public static function settings(): void {
		register_setting(self::PAGE, Age_Provider_Settings::OPTION, array('type' => 'array', 'sanitize_callback' => array('Age_Provider_Settings', 'sanitize')));
	}

	/** @param string[] $links */
	public static function action_links(array $links): array {
		array_unshift($links, '<a href="' . esc_url(admin_url('options-general.php?page=' . self::PAGE)) . '">' . esc_html__('Settings', 'age-provider') . '</a>');
		return $links;
	}

	/** admin-post.php?action=age_provider_check: runs the check and shows its findings on the settings page. */
	public static function check(): void {
		if (!current_user_can('manage_options')) {
			wp_die(esc_html__('You are not allowed to change these settings.', 'age-provider'), '', array('response' => 403));
		}
		check_admin_referer(self::CHECK_ACTION);
		set_transient('age_provider_check_' . get_current_user_id(), Age_Provider_Connection_Check::run(), MINUTE_IN_SECONDS);
		wp_safe_redirect(admin_url('options-general.php?page=' . self::PAGE . '&checked=1'));
		exit;
	}

	private static function field_name(string $name): string {
		return Age_Provider_Settings::OPTION . '[' . $name . ']';
	}

	private static function radio(string $name, string $value, string $current, string $label): string {
		return '<label><input type="radio" name="' . esc_attr(self::field_name($name)) . '" value="' . esc_attr($value) . '"' . checked($current, $value, false) . '> ' . esc_html($label) . '</label><br>';
	}

	public static function page(): void {
		if (!current_user_can('manage_options')) {
			return;
		}
		$values   = Age_Provider_Settings::all();
		$findings = get_transient('age_provider_check_' . get_current_user_id());
		delete_transient('age_provider_check_' . get_current_user_id());
		echo '<div class="wrap"><h1>' . esc_html__('Age Provider', 'age-provider') . '</h1>';
		echo '<p>' . esc_html__('Visitors prove their age with the Age Provider service before they see protected content. Copy the values below from your website\'s Integrate section on the platform.', 'age-provider') . '</p>';
		settings_errors(Age_Provider_Settings::OPTION);
		if (is_array($findings)) {
			echo '<div class="notice inline age-provider-findings"><h2>' . esc_html__('Connection check', 'age-provider') . '</h2><ul>';
			foreach ($findings as [$ok, $message]) {
				echo '<li class="' . ($ok ? 'age-provider-ok' : 'age-provider-problem') . '">' . ($ok ? '✓ ' : '✗ ') . esc_html($message) . '</li>';
			}
			echo '</ul></div>';
		}
		echo '<form method="post" action="options.php">';
		settings_fields(self::PAGE);
		echo '<table class="form-table" role="presentation">';
		echo '<tr><th scope="row"><label for="age-provider-service">' . esc_html__('Service address', 'age-provider') . '</label></th><td><input type="url" class="regular-text" id="age-provider-service" name="' . esc_attr(self::field_name('service_url')) . '" value="' . esc_attr($values['service_url']) . '" placeholder="https://age.example.org"><p class="description">' . esc_html__('The address of the Age Provider service, e.g. https://age.example.org.', 'age-provider') . '</p></td></tr>';
		echo '<tr><th scope="row"><label for="age-provider-key">' . esc_html__('Website public key', 'age-provider') . '</label></th><td><input type="text" class="regular-text code" id="age-provider-key" name="' . esc_attr(self::field_name('public_key')) . '" value="' . esc_attr($values['public_key']) . '" placeholder="pk_live_…" autocomplete="off"><p class="description">' . esc_html__('pk_test_… while you try it out (the sandbox), pk_live_… on the live site.', 'age-provider') . '</p></td></tr>';
		echo '<tr><th scope="row">' . esc_html__('How visitors verify', 'age-provider') . '</th><td><fieldset>'
			. self::radio('mode', Age_Provider_Settings::MODE_CHECKER, $values['mode'], __('Checker script: a window of the service opens on the page; this server checks the signed result', 'age-provider'))
			. self::radio('mode', Age_Provider_Settings::MODE_OAUTH2, $values['mode'], __('OAuth2: visitors go to the service and come back; this server redeems the code', 'age-provider'))
			. '</fieldset></td></tr>';
		echo '<tr><th scope="row"><label for="age-provider-client-id">' . esc_html__('OAuth2 client id', 'age-provider') . '</label></th><td><input type="text" class="regular-text code" id="age-provider-client-id" name="' . esc_attr(self::field_name('client_id')) . '" value="' . esc_attr($values['client_id']) . '" autocomplete="off"></td></tr>';
		$has_secret = '' !== $values['client_secret'];
		echo '<tr><th scope="row"><label for="age-provider-client-secret">' . esc_html__('OAuth2 client secret', 'age-provider') . '</label></th><td><input type="password" class="regular-text code" id="age-provider-client-secret" name="' . esc_attr(self::field_name('new_client_secret')) . '" value="" autocomplete="new-password" placeholder="' . esc_attr($has_secret ? __('stored: leave empty to keep it', 'age-provider') : '') . '">'
			. '<p class="description">' . esc_html__('Stored encrypted and never shown again.', 'age-provider') . '</p>'
			. ($has_secret ? '<label><input type="checkbox" name="' . esc_attr(self::field_name('forget_secret')) . '" value="1"> ' . esc_html__('Forget the stored secret', 'age-provider') . '</label>' : '')
			. '</td></tr>';
		echo '<tr><th scope="row">' . esc_html__('Redirect URI', 'age-provider') . '</th><td><code>' . esc_html(Age_Provider_Settings::redirect_uri()) . '</code><p class="description">' . esc_html__('For OAuth2: register this address, exactly, among your website\'s redirect URIs on the platform.', 'age-provider') . '</p></td></tr>';
		echo '<tr><th scope="row">' . esc_html__('What is protected', 'age-provider') . '</th><td><fieldset>'
			. self::radio('scope', Age_Provider_Settings::SCOPE_SITE, $values['scope'], __('The whole site', 'age-provider'))
			. self::radio('scope', Age_Provider_Settings::SCOPE_CHOSEN, $values['scope'], __('Chosen posts, pages, categories and tags (a box on their editing screen), and parts of pages (the Age Provider block or the [age_provider] shortcode)', 'age-provider'))
			. '</fieldset></td></tr>';
		echo '<tr><th scope="row">' . esc_html__('Search engines', 'age-provider') . '</th><td><fieldset>'
			. self::radio('indexing', Age_Provider_Settings::INDEX_NONE, $values['indexing'], __('Ask search engines not to index protected pages (noindex)', 'age-provider'))
			. self::radio('indexing', Age_Provider_Settings::INDEX_TEASER, $values['indexing'], __('Let them index the title and the hand-written excerpt shown on the age check page', 'age-provider'))
			. '<p class="description">' . esc_html__('Search engines get what every visitor gets before the check, never more.', 'age-provider') . '</p></fieldset></td></tr>';
		echo '</table>';
		submit_button();
		echo '</form>';
		echo '<form method="post" action="' . esc_url(admin_url('admin-post.php')) . '">';
		echo '<input type="hidden" name="action" value="' . esc_attr(self::CHECK_ACTION) . '">';
		wp_nonce_field(self::CHECK_ACTION);
		submit_button(__('Check the connection', 'age-provider'), 'secondary', 'age-provider-check', false);
		echo '</form></div>';
	}
}
