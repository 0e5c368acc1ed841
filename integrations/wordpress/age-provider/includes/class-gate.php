<?php
/**
 * What a visitor without a pass gets instead of protected content: the gate page (a whole protected page), a
 * notice (a protected post in a list, a feed, the REST API) or a placeholder (the shortcode's or the block's part).
 * None of them carries anything of the protected content.
 *
 * @package AgeProvider
 */

declare(strict_types=1);

if (!defined('ABSPATH')) {
	exit;
}

final class Age_Provider_Gate {
	public const SHORTCODE = 'age_provider';

	public static function register(): void {
		add_shortcode(self::SHORTCODE, array(self::class, 'shortcode'));
	}

	/** template_redirect: a protected page without a pass is answered by the gate, and nothing else. */
	public static function guard_request(): void {
		if (!Age_Provider_Settings::is_configured() || is_robots() || is_favicon()) {
			return;
		}
		$object = get_queried_object();
		$post   = $object instanceof WP_Post ? $object : null;
		if (Age_Provider_Settings::SCOPE_SITE === Age_Provider_Settings::scope()) {
			$protected = true;
		} elseif (is_singular()) {
			$protected = null !== $post && Age_Provider_Protection::post_is_protected($post);
		} else {
			$protected = (is_category() || is_tag()) && $object instanceof WP_Term && Age_Provider_Protection::term_is_protected($object->term_id);
		}
		if (!$protected) {
			return;
		}
		// A protected answer is the visitor's own: no cache may keep it or hand it to someone else.
		self::no_store();
		$allowed = null !== $post ? Age_Provider_Protection::may_see($post) : (Age_Provider_Pass::holds() || (is_user_logged_in() && current_user_can('edit_posts')));
		if ($allowed) {
			return;
		}
		self::render_page($post);
		exit;
	}

	/** Neither the browser's nor a shared cache keeps a page that depends on the visitor's pass; page-cache plugins skip it. */
	private static function no_store(): void {
		if (!headers_sent()) {
			nocache_headers();
			header('Cache-Control: no-store, no-cache, must-revalidate, max-age=0, private');
			header('Vary: Cookie', false);
		}
		if (!defined('DONOTCACHEPAGE')) {
			define('DONOTCACHEPAGE', true);
		}
	}

	/** The settings gate.js reads, on the element it enhances. */
	private static function client_config(): array {
		$config = array(
			'mode'        => Age_Provider_Settings::mode(),
			'requirement' => Age_Provider_Settings::service_url() . '/v1/requirement?key=' . rawurlencode(Age_Provider_Settings::public_key()),
			'endpoint'    => home_url('/'),
			'returnTo'    => Age_Provider_Return_Address::current(),
			'messages'    => array(
				'checking' => __('Checking whether a check is needed where you are…', 'age-provider'),
				'refused'  => __('The age check could not be confirmed. Please try again.', 'age-provider'),
				'failed'   => __('The age check service cannot be reached right now. Please try again later.', 'age-provider'),
				'popup'    => __('Your browser blocked the verification window: please allow pop-ups for this site and try again.', 'age-provider'),
			),
		);
		return $config;
	}

	private static function checker_script_url(): string {
		return Age_Provider_Settings::service_url() . '/v1/checker.js?key=' . rawurlencode(Age_Provider_Settings::public_key()) . '&nostart';
	}

	public static function start_url(string $return_to): string {
		return add_query_arg(array('age_provider' => 'start', 'return_to' => rawurlencode($return_to)), home_url('/'));
	}

	/** The verify button: a link into the OAuth2 flow (works without JavaScript), or the checker's trigger. */
	private static function button(string $return_to): string {
		$label = esc_html__('Verify my age', 'age-provider');
		if (Age_Provider_Settings::MODE_OAUTH2 === Age_Provider_Settings::mode()) {
			return '<a class="age-provider-button" href="' . esc_url(self::start_url($return_to)) . '">' . $label . '</a>';
		}
		return '<button type="button" class="age-provider-button" data-age-provider-start>' . $label . '</button>'
			. '<noscript><p>' . esc_html__('Please turn on JavaScript to verify your age.', 'age-provider') . '</p></noscript>';
	}

	/** The box that stands where protected content would be, with the button and a status line. */
	private static function box(string $message, string $return_to, string $extra_class = ''): string {
		$config = self::client_config();
		$config['returnTo'] = $return_to;
		return '<div class="age-provider-box ' . esc_attr($extra_class) . '" data-age-provider="' . esc_attr((string) wp_json_encode($config)) . '">'
			. '<p>' . esc_html($message) . '</p>' . self::button($return_to)
			. '<p class="age-provider-status" role="status" aria-live="polite"></p></div>';
	}

	private static function enqueue_assets(): void {
		$base = plugin_dir_url(AGE_PROVIDER_FILE) . 'assets/';
		wp_enqueue_style('age-provider', $base . 'gate.css', array(), AGE_PROVIDER_VERSION);
		if (Age_Provider_Settings::MODE_CHECKER === Age_Provider_Settings::mode()) {
			wp_enqueue_script('age-provider-checker', self::checker_script_url(), array(), null, true);
		}
		wp_enqueue_script('age-provider-gate', $base . 'gate.js', array(), AGE_PROVIDER_VERSION, true);
	}

	/** Stands for a protected post's content in lists, feeds and the REST API. */
	public static function notice(WP_Post $post): string {
		return '<p class="age-provider-notice">' . esc_html__('This content is for adults only. Open it to verify your age.', 'age-provider') . ' <a href="' . esc_url(get_permalink($post)) . '">' . esc_html(get_the_title($post)) . '</a></p>';
	}

	/**
	 * [age_provider]…[/age_provider]: the enclosed part, only for a visitor with a pass.
	 *
	 * @param array|string $attributes Unused.
	 */
	public static function shortcode($attributes, ?string $content = null): string {
		return self::protected_part((string) $content, static fn(string $inner): string => do_shortcode($inner));
	}

	/** The shortcode's and the block's part: rendered only for a visitor who may see it. */
	public static function protected_part(string $content, callable $render): string {
		$post = get_post();
		if (!Age_Provider_Settings::is_configured() || ($post instanceof WP_Post && Age_Provider_Protection::may_see($post)) || Age_Provider_Pass::holds()) {
			return $render($content);
		}
		self::no_store();
		self::enqueue_assets();
		return self::box(__('This part of the page is for adults only.', 'age-provider'), Age_Provider_Return_Address::current(), 'age-provider-part');
	}

	/** The whole gate page: the site's name, the page's title, the button; the teaser only if the webmaster chose it. */
	private static function render_page(?WP_Post $post): void {
		$service = wp_parse_url(Age_Provider_Settings::service_url());
		$origin  = ($service['scheme'] ?? 'https') . '://' . ($service['host'] ?? '') . (isset($service['port']) ? ':' . $service['port'] : '');
		status_header(200);
		header('Content-Type: text/html; charset=' . get_bloginfo('charset'));
		header("Content-Security-Policy: default-src 'none'; script-src 'self' " . $origin . "; style-src 'self'; img-src 'self' data:; connect-src 'self' " . $origin . "; base-uri 'none'; form-action 'self'; frame-ancestors 'self'");
		header('X-Content-Type-Options: nosniff');
		header('Referrer-Policy: strict-origin-when-cross-origin');
		if (Age_Provider_Settings::INDEX_NONE === Age_Provider_Settings::indexing()) {
			header('X-Robots-Tag: noindex');
		}
		$title    = null !== $post ? get_the_title($post) : get_bloginfo('name');
		$teaser   = null !== $post && Age_Provider_Settings::INDEX_TEASER === Age_Provider_Settings::indexing() ? $post->post_excerpt : '';
		$base     = plugin_dir_url(AGE_PROVIDER_FILE) . 'assets/';
		$checker  = Age_Provider_Settings::MODE_CHECKER === Age_Provider_Settings::mode();
		$return   = Age_Provider_Return_Address::current();
		echo '<!doctype html><html lang="' . esc_attr(str_replace('_', '-', determine_locale())) . '"><head><meta charset="' . esc_attr(get_bloginfo('charset')) . '">'
			. '<meta name="viewport" content="width=device-width, initial-scale=1">'
			. (Age_Provider_Settings::INDEX_NONE === Age_Provider_Settings::indexing() ? '<meta name="robots" content="noindex">' : '')
			. '<title>' . esc_html($title . ' – ' . get_bloginfo('name')) . '</title>'
			. '<link rel="stylesheet" href="' . esc_url($base . 'gate.css?ver=' . AGE_PROVIDER_VERSION) . '">'
			. ($checker ? '<script src="' . esc_url(self::checker_script_url()) . '" async></script>' : '')
			. '<script src="' . esc_url($base . 'gate.js?ver=' . AGE_PROVIDER_VERSION) . '" defer></script>'
			. '</head><body class="age-provider-gate"><main>'
			. '<p class="age-provider-site">' . esc_html(get_bloginfo('name')) . '</p>'
			. '<h1>' . esc_html($title) . '</h1>'
			. ('' !== $teaser ? '<p class="age-provider-teaser">' . esc_html($teaser) . '</p>' : '')
			. self::box(__('This content is for adults only. Please verify your age to continue.', 'age-provider'), $return, 'age-provider-page')
			. '</main></body></html>';
	}
}
