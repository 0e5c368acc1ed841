import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * A real WordPress for a test: Debian's `wordpress` package copied (hard links) into a folder of its own, a MariaDB
 * database of its own (127.0.0.1:3306, root), installed by WordPress's own wp_install(), the plugin unzipped from the
 * built zip by WordPress's unzip_file() and activated, served by PHP's built-in server with workers.
 */

const run = promisify(execFile);
export const WORDPRESS_DIR = '/usr/share/wordpress';

/** What the machine lacks to run WordPress, or undefined when everything is there. */
export async function wordpressMissing(): Promise<string | undefined> {
  if (!existsSync(join(WORDPRESS_DIR, 'wp-settings.php')))
    return `${WORDPRESS_DIR} is not installed (Debian: apt-get install -y wordpress)`;
  for (const [program, pkg] of [
    ['php', 'php-cli'],
    ['msgfmt', 'gettext'],
  ] as const) {
    try {
      await run(program, ['--version']);
    } catch {
      return `${program} is not installed (Debian: apt-get install -y ${pkg})`;
    }
  }
  const { stdout } = await run('php', ['-m']);
  for (const extension of ['mysqli', 'curl', 'openssl']) {
    if (!new RegExp(`^${extension}$`, 'm').test(stdout))
      return `PHP has no ${extension} extension (Debian: apt-get install -y php-mysql php-curl)`;
  }
  return undefined;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const php = (code: string): string => `<?php\ndeclare(strict_types=1);\n${code}`;

/** Loads WordPress for a command-line script, as a request to the site would. */
const BOOT = `
$_SERVER['HTTP_HOST'] = getenv('WP_TEST_HOST');
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['SERVER_NAME'] = 'localhost';
$_SERVER['REQUEST_METHOD'] = 'GET';
`;

const ROUTER = php(`
// PHP's built-in server: existing files (and folders with an index.php) as they are, everything else to WordPress.
$path = (string) parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$file = $_SERVER['DOCUMENT_ROOT'] . $path;
if ($path !== '/' && (is_file($file) || is_file(rtrim($file, '/') . '/index.php'))) {
	return false;
}
require $_SERVER['DOCUMENT_ROOT'] . '/index.php';
`);

/** Runs PHP code inside the installed WordPress (after wp-load.php) and returns what it prints. */
const EVAL = php(`${BOOT}
require getenv('WP_TEST_ROOT') . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';
eval(file_get_contents('php://stdin'));
`);

/**
 * The test's WordPress is offline: its own update checks against wordpress.org (blocked by WP_HTTP_BLOCK_EXTERNAL)
 * would log warnings of WordPress's own into the debug log the test reads, so they are answered as just done.
 */
const OFFLINE = php(`
$checked = static fn() => (object) array('last_checked' => time(), 'version_checked' => get_bloginfo('version'), 'updates' => array(), 'response' => array(), 'translations' => array(), 'checked' => array());
foreach (array('update_core', 'update_plugins', 'update_themes') as $transient) {
	add_filter('pre_site_transient_' . $transient, $checked);
}
foreach (array('plugins', 'themes') as $kind) {
	foreach (array('load-plugins.php', 'load-themes.php', 'load-update.php', 'load-update-core.php', 'wp_update_' . $kind) as $hook) {
		remove_action($hook, 'wp_update_' . $kind);
	}
	remove_action('admin_init', '_maybe_update_' . $kind);
}
remove_action('admin_init', '_maybe_update_core');
remove_action('wp_version_check', 'wp_version_check');
`);

const INSTALL = php(`${BOOT}
define('WP_INSTALLING', true);
// No mail leaves the test (wp_install tells the admin): WordPress keeps a wp_mail defined before it loads.
function wp_mail(...$arguments): bool { return true; }
require getenv('WP_TEST_ROOT') . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/file.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';
$installed = wp_install('Night Shop', 'admin', 'admin@example.test', false, '', getenv('WP_TEST_PASSWORD'));
if (is_wp_error($installed) || empty($installed['user_id'])) { fwrite(STDERR, 'wp_install failed'); exit(1); }
WP_Filesystem();
$unzipped = unzip_file(getenv('WP_TEST_ZIP'), WP_PLUGIN_DIR);
if (is_wp_error($unzipped)) { fwrite(STDERR, 'unzip: ' . $unzipped->get_error_message()); exit(1); }
$activated = activate_plugin('age-provider/age-provider.php');
if (is_wp_error($activated)) { fwrite(STDERR, 'activate: ' . $activated->get_error_message()); exit(1); }
echo 'installed';
`);

export interface WordPress {
  /** http://localhost:PORT, the site's address */
  url: string;
  root: string;
  password: string;
  debugLog: string;
  /** PHP code run inside WordPress (wp-load.php loaded); returns what it prints. `environment` adds variables. */
  eval(code: string, environment?: Record<string, string>): Promise<string>;
  close(): Promise<void>;
}

async function mysqlQuery(sql: string): Promise<void> {
  await run('php', [
    '-r',
    `$db = new mysqli('127.0.0.1', 'root', '', '', 3306); if (!$db->query(${JSON.stringify(sql)})) { fwrite(STDERR, $db->error); exit(1); }`,
  ]);
}

export async function startWordPress(zip: string): Promise<WordPress> {
  const work = await mkdtemp(join(tmpdir(), 'age-provider-wordpress-'));
  const root = join(work, 'wordpress');
  const database = `ap_wp_${randomBytes(6).toString('hex')}`;
  const password = randomBytes(12).toString('base64url');
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const debugLog = join(work, 'debug.log');
  const env = {
    ...process.env,
    WP_TEST_HOST: `localhost:${port}`,
    WP_TEST_ROOT: root,
    WP_TEST_ZIP: zip,
    WP_TEST_PASSWORD: password,
  };
  let server: ChildProcess | undefined;
  let serverOutput = '';
  const close = async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    await mysqlQuery(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
    await rm(work, { recursive: true, force: true });
  };
  try {
    await mysqlQuery(`CREATE DATABASE ${database} CHARACTER SET utf8mb4`);
    // Hard links: a copy in a moment that WordPress never writes into; a plain copy where links are refused.
    await run('cp', ['-al', WORDPRESS_DIR, root]).catch(() => run('cp', ['-a', WORDPRESS_DIR, root]));
    await rm(join(root, 'wp-config.php'));
    await rm(join(root, '.htaccess'), { force: true });
    const salt = () => randomBytes(48).toString('base64');
    await writeFile(
      join(root, 'wp-config.php'),
      php(`
define('DB_NAME', '${database}');
define('DB_USER', 'root');
define('DB_PASSWORD', '');
define('DB_HOST', '127.0.0.1:3306');
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
${['AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY', 'AUTH_SALT', 'SECURE_AUTH_SALT', 'LOGGED_IN_SALT', 'NONCE_SALT'].map((name) => `define('${name}', '${salt()}');`).join('\n')}
$table_prefix = 'wp_';
define('WP_HOME', '${url}');
define('WP_SITEURL', '${url}');
define('WP_DEBUG', true);
define('WP_DEBUG_LOG', '${debugLog}');
define('WP_DEBUG_DISPLAY', false);
define('WP_ENVIRONMENT_TYPE', getenv('WP_TEST_ENVIRONMENT') ?: 'development');
define('DISABLE_WP_CRON', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('WP_ACCESSIBLE_HOSTS', '127.0.0.1');
define('FS_METHOD', 'direct');
if (!defined('ABSPATH')) {
	define('ABSPATH', __DIR__ . '/');
}
require_once ABSPATH . 'wp-settings.php';
`),
    );
    await mkdir(join(root, 'wp-content', 'mu-plugins'), { recursive: true });
    await writeFile(join(root, 'wp-content', 'mu-plugins', 'offline.php'), OFFLINE);
    await writeFile(join(work, 'router.php'), ROUTER);
    await writeFile(join(work, 'eval.php'), EVAL);
    await writeFile(join(work, 'install.php'), INSTALL);
    const installed = await run('php', [join(work, 'install.php')], { env, cwd: root });
    if (installed.stdout.trim() !== 'installed')
      throw new Error(`WordPress did not install: ${installed.stdout}${installed.stderr}`);
    server = spawn('php', ['-d', 'display_errors=0', '-S', `127.0.0.1:${port}`, '-t', root, join(work, 'router.php')], {
      env: { ...env, PHP_CLI_SERVER_WORKERS: '4' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    server.stderr!.on('data', (chunk: Buffer) => {
      serverOutput = (serverOutput + chunk.toString()).slice(-4000);
    });
    for (let attempt = 0; ; attempt += 1) {
      try {
        await fetch(`http://127.0.0.1:${port}/wp-login.php`, { headers: { host: `localhost:${port}` } });
        break;
      } catch (error) {
        if (attempt > 100 || server.exitCode !== null)
          throw new Error(`PHP's server did not start: ${serverOutput}`, { cause: error });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    url,
    root,
    password,
    debugLog,
    async eval(code, environment = {}) {
      const child = execFile('php', [join(work, 'eval.php')], { env: { ...env, ...environment }, cwd: root });
      child.stdin!.end(code);
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const code_ = await new Promise<number | null>((resolve) => child.on('close', resolve));
      if (code_ !== 0) throw new Error(`PHP failed (${code_}): ${stderr}${stdout}`);
      return stdout;
    },
    close,
  };
}

/** The WordPress debug log's lines, or none when it was never written. */
export async function debugLogLines(path: string): Promise<string[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line.trim() !== '');
}
