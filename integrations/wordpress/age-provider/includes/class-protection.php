<?php
/**
 * What is protected, and keeping it out of every answer WordPress sends before the check: the content and excerpt
 * of a protected post wherever they are shown (archives, search, feeds, the REST API, embeds), the part inside the
 * shortcode or the block.
 *
 * @package AgeProvider
 */

declare(strict_types=1);

if (!defined('ABSPATH')) {
	exit;
}

final class Age_Provider_Protection {
	public const META = '_age_provider_protected';

	public static function register_filters(): void {
		// Late, so what other filters add to the content goes too; the shortcode's own callback guards its part.
		add_filter('the_content', array(self::class, 'filter_content'), PHP_INT_MAX);
		add_filter('get_the_excerpt', array(self::class, 'filter_excerpt'), PHP_INT_MAX, 2);
		add_filter('the_excerpt_rss', array(self::class, 'filter_feed_excerpt'), PHP_INT_MAX);
		add_filter('the_content_feed', array(self::class, 'filter_feed_excerpt'), PHP_INT_MAX);
		add_filter('comments_array', array(self::class, 'filter_comments'), PHP_INT_MAX, 2);
		add_filter('wp_robots', array(self::class, 'robots'));
	}

	/** Whether the post is protected: the whole site, the post itself, or one of its categories or tags. */
	public static function post_is_protected($post): bool {
		$post = get_post($post);
		if (!$post instanceof WP_Post) {
			return Age_Provider_Settings::SCOPE_SITE === Age_Provider_Settings::scope();
		}
		if (Age_Provider_Settings::SCOPE_SITE === Age_Provider_Settings::scope() || '1' === get_post_meta($post->ID, self::META, true)) {
			return true;
		}
		foreach (array('category', 'post_tag') as $taxonomy) {
			$terms = get_the_terms($post, $taxonomy);
			if (is_array($terms)) {
				foreach ($terms as $term) {
					if (self::term_is_protected($term->term_id)) {
						return true;
					}
				}
			}
		}
		return false;
	}

	public static function term_is_protected(int $term_id): bool {
		return '1' === get_term_meta($term_id, self::META, true);
	}

	/** Whether this visitor may see the post's protected content now. */
	public static function may_see($post): bool {
		if (!Age_Provider_Settings::is_configured() || Age_Provider_Pass::holds()) {
			return true;
		}
		$post = get_post($post);
		// Its authors and editors see what they write (the editor's preview); nobody else is let through unchecked.
		return $post instanceof WP_Post && is_user_logged_in() && current_user_can('edit_post', $post->ID);
	}

	public static function hidden($post): bool {
		return self::post_is_protected($post) && !self::may_see($post);
	}

	public static function filter_content($content) {
		$post = get_post();
		if (!$post instanceof WP_Post || !self::hidden($post)) {
			return $content;
		}
		return Age_Provider_Gate::notice($post);
	}

	public static function filter_excerpt($excerpt, $post = null) {
		if (!self::hidden($post ?? get_post())) {
			return $excerpt;
		}
		$post = get_post($post);
		// The webmaster's own excerpt is the teaser they chose to show; nothing of the content is.
		return Age_Provider_Settings::INDEX_TEASER === Age_Provider_Settings::indexing() && $post instanceof WP_Post ? $post->post_excerpt : '';
	}

	public static function filter_feed_excerpt($text) {
		return self::hidden(get_post()) ? '' : $text;
	}

	public static function filter_comments($comments, $post_id) {
		return self::hidden($post_id) ? array() : $comments;
	}

	/** Protected pages tell search engines not to index them, unless the webmaster chose to show the teaser. */
	public static function robots(array $robots): array {
		if (Age_Provider_Settings::INDEX_NONE === Age_Provider_Settings::indexing() && is_singular() && self::post_is_protected(get_queried_object())) {
			$robots['noindex'] = true;
		}
		return $robots;
	}
}
