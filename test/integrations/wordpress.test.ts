import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { importJWK, SignJWT, type JWK } from 'jose';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { buildWordPressZip } from '../../integrations/wordpress/build-zip.js';
import { startTestApp, testSecrets, type TestApp } from '../helpers/app.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.js';
import { passSandbox } from '../helpers/demo.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../helpers/fixtures.js';
import { debugLogLines, startWordPress, wordpressMissing, type WordPress } from '../helpers/wordpress.js';

// The plugin as a webmaster installs it: the zip from `npm run wordpress:zip` unzipped and activated by Debian's
// WordPress itself, configured on its settings page, against a running age-provider; visitors in Debian's chromium.

const run = promisify(execFile);
/** A folder to save the pictures of docs/wordpress.md into (WORDPRESS_SCREENSHOTS=docs/screenshots); none by default. */
const SCREENSHOTS = process.env.WORDPRESS_SCREENSHOTS;
async function shot(page: Page, name: string): Promise<void> {
  if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, `wordpress-${name}.png`), fullPage: true });
}
const SHOP = 'Night Shop';
/** Phrases only the protected parts contain: none may reach a visitor before the check. */
const SECRET = { post: 'The 18-year-old single malt smells of smoke and honey.', category: 'Tonight only: the cellar tasting.', shortcode: 'Members price: 42 euros a bottle.', block: 'The rare cask list, for adults.' };

interface Site {
  post: string;
  postId: number;
  categoryPost: string;
  categoryId: number;
  shortcodePage: string;
  blockPage: string;
  publicPost: string;
}

describe('the WordPress plugin in a real WordPress (Debian wordpress, PHP, MariaDB, chromium)', function () {
  this.timeout(240_000);
  let app: TestApp;
  let wordpress: WordPress;
  let browser: Browser;
  let admin: Page;
  let site: Site;
  let client: ClientFixture;
  let stranger: ClientFixture;
  let zipDir: string;

  before(async function () {
    const missing = (await wordpressMissing()) ?? (existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is not installed (Debian: apt-get install -y chromium)`);
    if (missing) {
      console.log(`    skipped: ${missing}`);
      this.skip();
    }
    zipDir = await mkdtemp(join(tmpdir(), 'age-provider-zip-'));
    wordpress = await startWordPress(await buildWordPressZip(join(zipDir, 'age-provider.zip')));
    app = await startTestApp({ trustProxy: true, geo: { countryHeader: 'X-Visitor-Country' } });
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    // Required in Germany only; a visitor whose country is unknown is asked (the service fails closed).
    client = await createClientFixture(app.provider.runtime, webmaster.id, { name: SHOP, domain: 'shop.example', regions: ['DE'], redirectUris: [`${wordpress.url}/?age_provider=callback`] });
    stranger = await createClientFixture(app.provider.runtime, webmaster.id, { name: 'Other Shop', domain: 'other.example' });
    site = JSON.parse(await wordpress.eval(`
      $category = wp_insert_term('After dark', 'category')['term_id'];
      $post = wp_insert_post(array('post_title' => 'Tasting notes', 'post_status' => 'publish', 'post_excerpt' => 'Notes for grown-ups.', 'post_content' => '<!-- wp:paragraph --><p>${SECRET.post}</p><!-- /wp:paragraph -->'));
      update_post_meta($post, '_age_provider_protected', '1');
      $in_category = wp_insert_post(array('post_title' => 'Cellar tasting', 'post_status' => 'publish', 'post_category' => array($category), 'post_content' => '<p>${SECRET.category}</p>'));
      $shortcode = wp_insert_post(array('post_type' => 'page', 'post_title' => 'Prices', 'post_status' => 'publish', 'post_content' => '<p>Welcome to the shop.</p>[age_provider]<p>${SECRET.shortcode}</p>[/age_provider]'));
      $block = wp_insert_post(array('post_type' => 'page', 'post_title' => 'Casks', 'post_status' => 'publish', 'post_content' => '<!-- wp:paragraph --><p>Our casks.</p><!-- /wp:paragraph --><!-- wp:age-provider/protected --><!-- wp:paragraph --><p>${SECRET.block}</p><!-- /wp:paragraph --><!-- /wp:age-provider/protected -->'));
      $public = wp_insert_post(array('post_title' => 'Opening hours', 'post_status' => 'publish', 'post_content' => '<p>Open from six.</p>'));
      echo wp_json_encode(array('post' => get_permalink($post), 'postId' => $post, 'categoryPost' => get_permalink($in_category), 'categoryId' => $category, 'shortcodePage' => get_permalink($shortcode), 'blockPage' => get_permalink($block), 'publicPost' => get_permalink($public)));
    `)) as Site;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    admin = await (await browser.newContext({ locale: 'en-GB' })).newPage();
    await admin.goto(`${wordpress.url}/wp-login.php`);
    await admin.fill('#user_login', 'admin');
    await admin.fill('#user_pass', wordpress.password);
    await Promise.all([admin.waitForURL(/wp-admin/), admin.click('#wp-submit')]);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await wordpress?.close();
    if (zipDir) await rm(zipDir, { recursive: true, force: true });
  });

  /** Fills the settings page as a webmaster does and saves; returns the page's text after saving. */
  async function configure(values: { service?: string; key?: string; mode?: 'checker' | 'oauth2'; clientId?: string; secret?: string; scope?: 'site' | 'chosen'; indexing?: 'noindex' | 'teaser' }): Promise<string> {
    await admin.goto(`${wordpress.url}/wp-admin/options-general.php?page=age-provider`);
    if (values.service !== undefined) await admin.getByLabel('Service address').fill(values.service);
    if (values.key !== undefined) await admin.getByLabel('Website public key').fill(values.key);
    if (values.mode) await admin.locator(`input[name="age_provider_settings[mode]"][value="${values.mode}"]`).check();
    if (values.clientId !== undefined) await admin.getByLabel('OAuth2 client id').fill(values.clientId);
    if (values.secret !== undefined) await admin.getByLabel('OAuth2 client secret').fill(values.secret);
    if (values.scope) await admin.locator(`input[name="age_provider_settings[scope]"][value="${values.scope}"]`).check();
    if (values.indexing) await admin.locator(`input[name="age_provider_settings[indexing]"][value="${values.indexing}"]`).check();
    await Promise.all([admin.waitForURL(/settings-updated=true/), admin.getByRole('button', { name: 'Save Changes' }).click()]);
    return admin.locator('#wpbody-content').innerText();
  }

  /** Clicks "Check the connection" and returns the findings, each "✓ …" or "✗ …". */
  async function checkConnection(): Promise<string[]> {
    await admin.goto(`${wordpress.url}/wp-admin/options-general.php?page=age-provider`);
    await Promise.all([admin.waitForURL(/checked=1/), admin.getByRole('button', { name: 'Check the connection' }).click()]);
    return (await admin.locator('.age-provider-findings li').allInnerTexts()).map((line) => line.trim());
  }

  /** A visitor's browser; `country` is what the service's trusted proxy would say about where they are. */
  async function visitor(country?: string): Promise<BrowserContext> {
    const context = await browser.newContext({ locale: 'en-GB' });
    if (country) await context.route(`${app.url}/v1/requirement*`, (route) => route.continue({ headers: { ...route.request().headers(), 'x-visitor-country': country } }));
    return context;
  }

  /** The HTML the server sends to a visitor without a pass. */
  async function served(address: string): Promise<{ status: number; html: string; headers: Headers }> {
    const response = await fetch(address, { redirect: 'manual' });
    return { status: response.status, html: await response.text(), headers: response.headers };
  }

  /** The checker's dialog on the gate page, its popup, the TEST sandbox passed. */
  async function passWithChecker(page: Page, picture?: string): Promise<void> {
    const button = page.getByRole('button', { name: 'Verify my age with Age Provider' });
    if (picture) {
      await button.waitFor();
      await shot(page, picture);
    }
    const [popup] = await Promise.all([page.waitForEvent('popup'), button.click()]);
    await passSandbox(popup, SHOP);
  }

  it('passes php -l on every PHP file of the zip', async () => {
    const plugin = join(wordpress.root, 'wp-content', 'plugins', 'age-provider');
    const files = (await readdir(plugin, { recursive: true })).filter((file) => file.endsWith('.php'));
    expect(files.length).to.be.greaterThan(10);
    const linted = await Promise.all(files.map((file) => run('php', ['-l', join(plugin, file)]).then(({ stdout }) => stdout)));
    for (const output of linted) expect(output).to.match(/^No syntax errors detected/);
    const languages = await readdir(join(plugin, 'languages'));
    expect(languages.filter((file) => file.endsWith('.mo')).sort()).to.deep.equal(['de_DE', 'es_ES', 'fr_FR', 'it_IT', 'pt_PT'].map((locale) => `age-provider-${locale}.mo`));
  });

  it('is configured on its settings page; the connection check says in plain words what is wrong', async () => {
    expect(await served(site.post).then((page) => page.html), 'not configured: nothing is held back yet').to.contain(SECRET.post);
    const saved = await configure({ service: app.url, key: client.keys.TEST, mode: 'checker', scope: 'chosen', clientId: client.clientId, secret: client.clientSecret });
    expect(saved).to.contain('Settings saved.');
    expect(await admin.content(), 'the secret is never printed back').not.to.contain(client.clientSecret);
    const stored = await wordpress.eval(`echo wp_json_encode(get_option('age_provider_settings'));`);
    expect(stored, 'nor stored in clear').not.to.contain(client.clientSecret);
    expect(await wordpress.eval(`echo Age_Provider_Settings::client_secret();`)).to.equal(client.clientSecret);

    const findings = await checkConnection();
    expect(findings.every((line) => line.startsWith('✓')), findings.join('\n')).to.equal(true);
    expect(findings.join('\n')).to.contain('The public key belongs to a website on this service.');
    await shot(admin, 'settings');

    await configure({ key: 'pk_test_thisKeyIsNotKnownAnywhere' });
    expect((await checkConnection()).join('\n')).to.contain('✗ Wrong key: the service knows no website with this public key.');
    await shot(admin, 'check-wrong-key');
    await configure({ service: 'http://127.0.0.1:9' });
    expect((await checkConnection()).join('\n')).to.match(/✗ The service cannot be reached at http:\/\/127\.0\.0\.1:9/);
    await configure({ service: app.url, key: client.keys.TEST });
    const onLiveSite = JSON.parse(await wordpress.eval(`echo wp_json_encode(Age_Provider_Connection_Check::run());`, { WP_TEST_ENVIRONMENT: 'production' })) as Array<[boolean, string]>;
    expect(onLiveSite.map(([, message]) => message).join('\n')).to.contain('TEST key on a LIVE site');

    await configure({ mode: 'oauth2' });
    const oauth2 = await checkConnection();
    expect(oauth2.every((line) => line.startsWith('✓')), oauth2.join('\n')).to.equal(true);
    expect(oauth2.join('\n')).to.contain('The client id and secret are accepted.');
    await configure({ secret: 'not-the-secret' });
    expect((await checkConnection()).join('\n')).to.contain('✗ Wrong client secret');
    await configure({ clientId: stranger.clientId, secret: stranger.clientSecret });
    expect((await checkConnection()).join('\n')).to.contain(`✗ Redirect URI not registered: add ${wordpress.url}/?age_provider=callback`);
    await configure({ mode: 'checker', clientId: client.clientId, secret: client.clientSecret });
  });

  it('marks a category protected on its editing screen, with the form\'s nonce', async () => {
    await admin.goto(`${wordpress.url}/wp-admin/term.php?taxonomy=category&tag_ID=${site.categoryId}`);
    await admin.getByLabel('Only visitors who verified their age see its posts').check();
    await shot(admin, 'category');
    await Promise.all([admin.waitForLoadState('load'), admin.getByRole('button', { name: 'Update' }).click()]);
    await admin.getByText('Category updated.').waitFor();
    expect(await wordpress.eval(`echo get_term_meta(${site.categoryId}, '_age_provider_protected', true);`)).to.equal('1');
    // The same form without its nonce changes nothing.
    const forged = await admin.request.post(`${wordpress.url}/wp-admin/edit-tags.php`, { form: { action: 'editedtag', tag_ID: String(site.categoryId), taxonomy: 'category', name: 'After dark' } });
    expect(forged.status()).to.be.oneOf([403, 200]);
    expect(await wordpress.eval(`echo get_term_meta(${site.categoryId}, '_age_provider_protected', true);`)).to.equal('1');
  });

  it('marks a post protected in the editor\'s Age verification box, saved with its nonce', async () => {
    const id = Number(await wordpress.eval(`
      update_user_meta(1, $GLOBALS['wpdb']->get_blog_prefix() . 'persisted_preferences', array('core/edit-post' => array('welcomeGuide' => false), '_modified' => gmdate('c')));
      echo wp_insert_post(array('post_title' => 'Cellar diary', 'post_status' => 'publish', 'post_content' => '<p>Diary.</p>'));
    `));
    await admin.goto(`${wordpress.url}/wp-admin/post.php?post=${id}&action=edit`);
    await admin.getByLabel('Only visitors who verified their age see this content').check();
    const metaBoxesSaved = admin.waitForResponse((response) => response.url().includes('meta-box-loader=1') && response.request().method() === 'POST');
    await admin.getByRole('button', { name: 'Update', exact: true }).click();
    expect((await metaBoxesSaved).status()).to.equal(302);
    expect(await wordpress.eval(`echo get_post_meta(${id}, '_age_provider_protected', true);`)).to.equal('1');
    expect((await served(`${wordpress.url}/?p=${id}`)).html).not.to.contain('Diary.');
  });

  it('checker script: sends nothing protected before the check, shows the post after a TEST sandbox check, remembers it', async () => {
    for (const address of [site.post, site.categoryPost]) {
      const gate = await served(address);
      expect(gate.status).to.equal(200);
      expect(gate.html).not.to.contain(SECRET.post);
      expect(gate.html).not.to.contain(SECRET.category);
      expect(gate.html).to.contain('Verify my age');
      expect(gate.headers.get('cache-control')).to.contain('no-store');
      expect(gate.headers.get('x-robots-tag')).to.equal('noindex');
      expect(gate.headers.get('content-security-policy')).to.contain(`script-src 'self' ${app.url}`);
    }
    const context = await visitor();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    const first = await page.goto(site.post);
    expect(await first!.text(), 'the HTML chromium received').not.to.contain(SECRET.post);
    await passWithChecker(page, 'gate-checker');
    await page.getByText(SECRET.post).waitFor();
    await shot(page, 'unlocked');
    const cookie = (await context.cookies()).find((entry) => entry.name === 'age_provider_pass');
    expect(cookie?.httpOnly).to.equal(true);
    expect(cookie!.expires * 1000 - Date.now(), 'no longer than the result (one hour)').to.be.within(0, 3600_000 + 60_000);

    const later = await context.newPage();
    await later.goto(site.categoryPost);
    expect(await later.getByText(SECRET.category).isVisible(), 'remembered on the next visit').to.equal(true);
    expect(problems).to.deep.equal([]);
    await context.close();
  });

  it('checker script: a shortcode and a block inside an unprotected page hold back only their part', async () => {
    for (const [address, secret] of [[site.shortcodePage, SECRET.shortcode], [site.blockPage, SECRET.block]] as const) {
      const html = (await served(address)).html;
      expect(html).to.match(/Welcome to the shop\.|Our casks\./);
      expect(html).not.to.contain(secret);
      expect(html).to.contain('This part of the page is for adults only.');
    }
    const context = await visitor();
    const page = await context.newPage();
    await page.goto(site.shortcodePage);
    await shot(page, 'shortcode');
    await page.getByRole('button', { name: 'Verify my age', exact: true }).click();
    await passWithChecker(page);
    await page.getByText(SECRET.shortcode).waitFor();
    await page.goto(site.blockPage);
    expect(await page.getByText(SECRET.block).isVisible()).to.equal(true);
    await context.close();
  });

  it('a visitor where the website requires no check sees the post at once, by the service\'s signed requirement', async () => {
    const context = await visitor('IT');
    const page = await context.newPage();
    let popups = 0;
    page.on('popup', () => { popups += 1; });
    await page.goto(site.post);
    await page.getByText(SECRET.post).waitFor();
    expect(popups).to.equal(0);
    await context.close();

    const inGermany = await visitor('DE');
    const german = await inGermany.newPage();
    await german.goto(site.post);
    await german.getByRole('button', { name: 'Verify my age with Age Provider' }).waitFor();
    expect(await german.getByText(SECRET.post).count()).to.equal(0);
    await inGermany.close();
  });

  describe('tokens the plugin refuses (signed here with jose; the plugin verifies with PHP\'s openssl)', () => {
    const signingJwk = testSecrets.jwks.keys[0] as JWK;
    const now = () => Math.floor(Date.now() / 1000);
    const claims = () => ({ verified: true, uid: 'test_x', environment: 'TEST', age_threshold: 18 });
    async function sign(payload: Record<string, unknown>, options: { typ?: string; audience?: string; issuer?: string; exp?: number; jwk?: JWK; alg?: string } = {}): Promise<string> {
      const alg = options.alg ?? 'RS256';
      return new SignJWT(payload)
        .setProtectedHeader({ alg, kid: signingJwk.kid!, typ: options.typ ?? 'age-verification+jwt' })
        .setIssuer(options.issuer ?? app.url)
        .setAudience(options.audience ?? client.keys.TEST)
        .setIssuedAt()
        .setExpirationTime(options.exp ?? now() + 600)
        .sign(await importJWK(options.jwk ?? signingJwk, alg));
    }
    async function unlock(token: string, action = 'unlock', headers: Record<string, string> = {}): Promise<{ status: number; pass: boolean }> {
      const response = await fetch(`${wordpress.url}/?age_provider=${action}`, { method: 'POST', headers, body: new URLSearchParams({ token }) });
      return { status: response.status, pass: response.headers.getSetCookie().some((line) => line.startsWith('age_provider_pass=') && !line.includes('age_provider_pass=;')) };
    }
    const unsigned = (payload: Record<string, unknown>) =>
      `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'age-verification+jwt', kid: signingJwk.kid })).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.`;

    it('accepts a well-signed result (the control: the refusals below are for their one flaw)', async () => {
      expect(await unlock(await sign(claims()))).to.deep.equal({ status: 200, pass: true });
    });

    it('refuses a forged, expired, unsigned, other-audience, other-issuer, unverified or TEST-typed-otherwise token', async () => {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const forgedJwk = { ...privateKey.export({ format: 'jwk' }), kid: signingJwk.kid } as JWK;
      const cases: Record<string, string> = {
        forged: await sign(claims(), { jwk: forgedJwk }),
        expired: await sign(claims(), { exp: now() - 3600 }),
        'unsigned (alg none)': unsigned({ ...claims(), iss: app.url, aud: client.keys.TEST, exp: now() + 600 }),
        'HS256 keyed with the public key': await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256', kid: signingJwk.kid!, typ: 'age-verification+jwt' }).setIssuer(app.url).setAudience(client.keys.TEST).setExpirationTime(now() + 600).sign(Buffer.from(signingJwk.n!)),
        'other audience': await sign(claims(), { audience: stranger.keys.TEST }),
        'other issuer': await sign(claims(), { issuer: 'https://age.example.org' }),
        'not verified': await sign({ ...claims(), verified: false }),
        'LIVE result on a TEST site': await sign({ ...claims(), environment: 'LIVE' }),
        'a requirement answer': await sign({ required: false, environment: 'TEST' }, { typ: 'age-requirement+jwt' }),
        'a tampered payload': (await sign(claims())).replace(/\.([^.]+)\./, (_, payload: string) => `.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), uid: 'someone_else' })).toString('base64url')}.`),
        'not a token': 'eyJ.hello.world',
      };
      for (const [name, token] of Object.entries(cases)) {
        expect(await unlock(token), name).to.deep.equal({ status: 403, pass: false });
      }
      expect(await unlock(await sign(claims()), 'unlock', { Origin: 'https://evil.example' }), 'a post from another site').to.deep.equal({ status: 403, pass: false });
    });

    it('refuses a forged or expired "no check required here"', async () => {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const requirement = { required: false, country: 'IT', country_subdivision: null, age_threshold: 18, environment: 'TEST' };
      expect(await unlock(await sign(requirement, { typ: 'age-requirement+jwt' }), 'requirement')).to.deep.equal({ status: 200, pass: true });
      expect(await unlock(await sign(requirement, { typ: 'age-requirement+jwt', jwk: { ...privateKey.export({ format: 'jwk' }), kid: signingJwk.kid } as JWK }), 'requirement')).to.deep.equal({ status: 403, pass: false });
      expect(await unlock(await sign(requirement, { typ: 'age-requirement+jwt', exp: now() - 60 }), 'requirement')).to.deep.equal({ status: 403, pass: false });
      expect(await unlock(await sign({ ...requirement, required: true }, { typ: 'age-requirement+jwt' }), 'requirement')).to.deep.equal({ status: 200, pass: false });
    });

    it('refuses a pass cookie it did not sign', async () => {
      const forged = `${Buffer.from(JSON.stringify({ kind: 'verified', exp: now() + 3600, key: 'x' })).toString('base64url')}.${Buffer.from(randomUUID()).toString('base64url')}`;
      const { html } = await fetch(site.post, { headers: { cookie: `age_provider_pass=${forged}` } }).then(async (response) => ({ html: await response.text() }));
      expect(html).not.to.contain(SECRET.post);
    });
  });

  it('lets nothing protected out through the REST API, feeds, search, archives or comments', async () => {
    const leaks = [
      `${wordpress.url}/?rest_route=/wp/v2/posts/${site.postId}`,
      `${wordpress.url}/?rest_route=/wp/v2/posts`,
      `${wordpress.url}/?feed=rss2`,
      `${wordpress.url}/?s=single+malt`,
      `${wordpress.url}/`,
      `${wordpress.url}/?rest_route=/wp/v2/pages`,
    ];
    for (const address of leaks) {
      const { html } = await served(address);
      for (const secret of Object.values(SECRET)) expect(html, `${address} must not carry "${secret}"`).not.to.contain(secret.replace(/'/g, '&#8217;'));
    }
  });

  describe('OAuth2 mode', () => {
    before(async () => {
      await configure({ mode: 'oauth2', clientId: client.clientId, secret: client.clientSecret });
    });

    it('redirects to the service with state and PKCE, redeems the code, reads Resources, shows the post and remembers it', async () => {
      const gate = await served(site.post);
      expect(gate.html).not.to.contain(SECRET.post);
      const start = new URL(/href="([^"]*age_provider=start[^"]*)"/.exec(gate.html)![1]!.replace(/&amp;/g, '&').replace(/&#038;/g, '&'));
      const redirect = await fetch(start, { redirect: 'manual' });
      expect(redirect.status).to.equal(303);
      const authorization = new URL(redirect.headers.get('location')!);
      expect(authorization.origin).to.equal(app.url);
      expect(Object.fromEntries(authorization.searchParams)).to.include({ client_id: client.clientId, redirect_uri: `${wordpress.url}/?age_provider=callback`, response_type: 'code', code_challenge_method: 'S256' });
      expect(authorization.searchParams.get('state')).to.match(/^[A-Za-z0-9_-]{43}$/);

      const context = await visitor();
      const page = await context.newPage();
      await page.goto(site.post);
      await shot(page, 'gate-oauth2');
      await page.getByRole('link', { name: 'Verify my age' }).click();
      await passSandbox(page, SHOP);
      await page.waitForURL(site.post);
      await page.getByText(SECRET.post).waitFor();
      await page.goto(site.categoryPost);
      expect(await page.getByText(SECRET.category).isVisible()).to.equal(true);
      await context.close();
    });

    it('shows a shortcode\'s part after the flow, and a visitor where no check is required sees the post at once', async () => {
      const context = await visitor();
      const page = await context.newPage();
      await page.goto(site.shortcodePage);
      await page.getByRole('link', { name: 'Verify my age' }).click();
      await passSandbox(page, SHOP);
      await page.getByText(SECRET.shortcode).waitFor();
      expect(new URL(page.url()).href).to.equal(site.shortcodePage);
      await context.close();

      const abroad = await visitor('IT');
      const there = await abroad.newPage();
      await there.goto(site.post);
      await there.getByText(SECRET.post).waitFor();
      await abroad.close();
    });

    it('refuses a callback whose state it did not issue, and never returns anywhere but this site', async () => {
      const stray = await fetch(`${wordpress.url}/?age_provider=callback&code=x&state=y`, { redirect: 'manual' });
      expect(stray.status).to.equal(400);
      expect(stray.headers.getSetCookie().some((line) => line.startsWith('age_provider_pass=') && !line.includes('age_provider_pass=;'))).to.equal(false);
      for (const evil of ['https://evil.example/', '//evil.example/', '/\\evil.example/', 'https://localhost.evil.example/', `${wordpress.url}@evil.example/`, 'javascript:alert(1)']) {
        const response = await fetch(`${wordpress.url}/?age_provider=start&return_to=${encodeURIComponent(evil)}`, { redirect: 'manual' });
        const flow = response.headers.getSetCookie().find((line) => line.startsWith('age_provider_flow='))!;
        const payload = JSON.parse(Buffer.from(flow.slice('age_provider_flow='.length).split('.')[0]!, 'base64url').toString()) as { return_to: string };
        expect(payload.return_to, evil).to.equal(`${wordpress.url}/`);
      }
      const context = await visitor();
      const page = await context.newPage();
      await page.goto(`${wordpress.url}/?age_provider=start&return_to=${encodeURIComponent('https://evil.example/')}`);
      await passSandbox(page, SHOP);
      await page.waitForURL(`${wordpress.url}/`);
      await context.close();
    });
  });

  // Mocha runs a suite's own tests before its nested suites: these come last, after the OAuth2 mode's.
  describe('languages, admin pages, uninstall', () => {
    it('speaks the six languages of the service on the gate page', async () => {
      const expected: Record<string, string> = { en_US: 'Verify my age', de_DE: 'Mein Alter nachweisen', es_ES: 'Verificar mi edad', fr_FR: 'Vérifier mon âge', it_IT: 'Verifica la mia età', pt_PT: 'Verificar a minha idade' };
      try {
        for (const [locale, label] of Object.entries(expected)) {
          await wordpress.eval(`update_option('WPLANG', '${locale === 'en_US' ? '' : locale}');`);
          const { html } = await served(site.post);
          expect(html, locale).to.contain(`lang="${locale.replace('_', '-')}"`);
          expect(html, locale).to.contain(label);
        }
      } finally {
        await wordpress.eval(`update_option('WPLANG', '');`);
      }
    });

    it('shows its admin pages without a PHP notice or warning of its own (WP_DEBUG on)', async () => {
      // Everything the visitors' pages, the endpoints and the flows logged so far: nothing from the plugin.
      const before = await debugLogLines(wordpress.debugLog);
      expect(before.filter((line) => line.includes('/plugins/age-provider/')), before.join('\n')).to.deep.equal([]);
      await writeFile(wordpress.debugLog, '');
      for (const path of ['options-general.php?page=age-provider', 'plugins.php', `term.php?taxonomy=category&tag_ID=${site.categoryId}`, 'edit-tags.php?taxonomy=post_tag', `post.php?post=${site.postId}&action=edit`]) {
        const response = await admin.goto(`${wordpress.url}/wp-admin/${path}`);
        expect(response!.status(), path).to.equal(200);
      }
      await checkConnection();
      // Debian's WordPress 6.1 itself reports PHP 8.2 deprecations of its own files; anything else, or anything naming the plugin, fails.
      const lines = await debugLogLines(wordpress.debugLog);
      const ours = lines.filter((line) => line.includes('/plugins/age-provider/') || !/PHP Deprecated: .* in \S+\/wp-(includes|admin)\//.test(line));
      expect(ours, lines.join('\n')).to.deep.equal([]);
    });

    it('protects every page in the whole-site setting, and nothing of them is sent before the check', async () => {
      await configure({ scope: 'site' });
      for (const address of [site.publicPost, `${wordpress.url}/`, site.shortcodePage]) {
        const { html, headers } = await served(address);
        expect(html, address).to.contain('Verify my age').and.not.contain('Open from six.').and.not.contain('Welcome to the shop.');
        expect(headers.get('cache-control'), address).to.contain('no-store');
      }
      expect((await served(`${wordpress.url}/wp-login.php`)).html, 'signing in stays possible').to.contain('user_login');
      await configure({ scope: 'chosen' });
      expect((await served(site.publicPost)).html).to.contain('Open from six.');
    });

    it('removes its options when uninstalled', async () => {
      const output = await wordpress.eval(`
        deactivate_plugins('age-provider/age-provider.php');
        uninstall_plugin('age-provider/age-provider.php');
        echo wp_json_encode(array(get_option('age_provider_settings'), get_post_meta(${site.postId}, '_age_provider_protected', true), get_term_meta(${site.categoryId}, '_age_provider_protected', true)));
      `);
      expect(JSON.parse(output)).to.deep.equal([false, '', '']);
    });
  });
});
