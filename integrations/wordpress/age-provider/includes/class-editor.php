<?php
/**
 * Choosing what is protected where it is written: a box on the post and page editor, a checkbox on the category and
 * tag screens (each saved with its own nonce and the right capability), and the Age Provider block.
 *
 * @package AgeProvider
 */

declare(strict_types=1);

if (!defined('ABSPATH')) {
	exit;
}

final class Age_Provider_Editor {
	private const NONCE = 'age_provider_protect';
	private const FIELD = 'age_provider_protected';

	public static function register_admin(): void {
		add_action('add_meta_boxes', array(self::class, 'meta_box'));
		add_action('save_post', array(self::class, 'save_post'), 10, 2);
		foreach (array('category', 'post_tag') as $taxonomy) {
			add_action($taxonomy . '_add_form_fields', array(self::class, 'term_add_field'));
			add_action($taxonomy . '_edit_form_fields', array(self::class, 'term_edit_field'));
			add_action('created_' . $taxonomy, array(self::class, 'save_term'));
			add_action('edited_' . $taxonomy, array(self::class, 'save_term'));
		}
	}

	public static function register_blocks(): void {
		register_block_type(dirname(AGE_PROVIDER_FILE) . '/blocks/protected', array(
			'render_callback' => static fn(array $attributes, string $content): string => Age_Provider_Gate::protected_part($content, static fn(string $inner): string => $inner),
		));
	}

	public static function meta_box(): void {
		add_meta_box('age-provider', __('Age verification', 'age-provider'), array(self::class, 'render_meta_box'), array_values(get_post_types(array('public' => true))), 'side');
	}

	public static function render_meta_box(WP_Post $post): void {
		wp_nonce_field(self::NONCE, self::NONCE . '_nonce');
		if (Age_Provider_Settings::SCOPE_SITE === Age_Provider_Settings::scope()) {
			echo '<p>' . esc_html__('The whole site is protected (Settings, Age Provider).', 'age-provider') . '</p>';
		}
		echo '<label><input type="checkbox" name="' . esc_attr(self::FIELD) . '" value="1"' . checked('1', get_post_meta($post->ID, Age_Provider_Protection::META, true), false) . '> '
			. esc_html__('Only visitors who verified their age see this content', 'age-provider') . '</label>';
	}

	public static function save_post(int $post_id, WP_Post $post): void {
		if (!isset($_POST[self::NONCE . '_nonce']) || !wp_verify_nonce(sanitize_text_field(wp_unslash($_POST[self::NONCE . '_nonce'])), self::NONCE)) {
			return;
		}
		if ((defined('DOING_AUTOSAVE') && DOING_AUTOSAVE) || wp_is_post_revision($post_id) || !current_user_can('edit_post', $post_id)) {
			return;
		}
		if (isset($_POST[self::FIELD])) {
			update_post_meta($post_id, Age_Provider_Protection::META, '1');
		} else {
			delete_post_meta($post_id, Age_Provider_Protection::META);
		}
	}

	private static function term_checkbox(bool $checked): string {
		return '<label><input type="checkbox" name="' . esc_attr(self::FIELD) . '" value="1"' . checked($checked, true, false) . '> '
			. esc_html__('Only visitors who verified their age see its posts', 'age-provider') . '</label>';
	}

	public static function term_add_field(): void {
		wp_nonce_field(self::NONCE, self::NONCE . '_nonce');
		echo '<div class="form-field">' . self::term_checkbox(false) . '</div>'; // phpcs:ignore WordPress.Security.EscapeOutput -- escaped in term_checkbox
	}

	public static function term_edit_field(WP_Term $term): void {
		echo '<tr class="form-field"><th scope="row">' . esc_html__('Age verification', 'age-provider') . '</th><td>';
		wp_nonce_field(self::NONCE, self::NONCE . '_nonce');
		echo self::term_checkbox(Age_Provider_Protection::term_is_protected($term->term_id)) . '</td></tr>'; // phpcs:ignore WordPress.Security.EscapeOutput -- escaped in term_checkbox
	}

	public static function save_term(int $term_id): void {
		if (!isset($_POST[self::NONCE . '_nonce']) || !wp_verify_nonce(sanitize_text_field(wp_unslash($_POST[self::NONCE . '_nonce'])), self::NONCE) || !current_user_can('edit_term', $term_id)) {
			return;
		}
		if (isset($_POST[self::FIELD])) {
			update_term_meta($term_id, Age_Provider_Protection::META, '1');
		} else {
			delete_term_meta($term_id, Age_Provider_Protection::META);
		}
	}
}
