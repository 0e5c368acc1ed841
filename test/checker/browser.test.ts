import { expect } from 'chai';
import { createPrivateKey, createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWK } from 'jose';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { regenerateWebsiteKey } from '../../lib/websites/index.js';
import { startTestApp, testSecrets, type TestApp } from '../helpers/app.js';
import { createClientFixture, createWebmasterFixture, TEST_ORIGIN } from '../helpers/fixtures.js';

// The checker script on a host page nobody of ours serves: another loopback origin, a CSP allowing scripts from
// our origin only, and no script of its own (the test listens to the events from outside the page).

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

interface RecordedEvent {
  type: string;
  detail: Record<string, unknown>;
}

/** The host page: the script tag with the options asked for, under a CSP that allows only the issuer's scripts. */
function hostPage(issuer: string, query: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Night Shop</title>
<script src="${issuer}/v1/checker.js?${query.replace(/&/g, '&amp;')}" async></script></head>
<body><h1>Night Shop</h1><p>Adults only.</p><a href="/elsewhere">A link behind the overlay</a></body></html>`;
}

async function startHost(issuer: string): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    response.setHeader(
      'Content-Security-Policy',
      `default-src 'none'; script-src ${issuer}; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'`,
    );
    response.setHeader('Content-Type', 'text/html; charset=utf-8');
    response.end(hostPage(issuer, url.searchParams.get('script') ?? ''));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // "localhost", not 127.0.0.1: another origin (and site) than the service's.
  return { url: `http://localhost:${(server.address() as AddressInfo).port}`, server };
}

/** The TEST sandbox as a person clicks through it in the verification window. */
async function passSandbox(window: Page, websiteName: string): Promise<void> {
  await window.getByRole('button', { name: 'Accept and continue' }).click();
  const choice = window.getByRole('heading', { name: 'Choose how to prove your age' });
  const sandbox = window.getByRole('radio', { name: /^Pass/ });
  await choice.or(sandbox).first().waitFor();
  if (await choice.isVisible()) await window.locator('ul.choices a.button').first().click();
  await sandbox.check();
  await window.getByRole('button', { name: 'Send this result' }).click();
  await window.getByRole('button', { name: `Continue to ${websiteName}` }).click();
}

describe('the checker script in a browser (Debian chromium, headless)', function () {
  this.timeout(180_000);
  let app: TestApp;
  let host: { url: string; server: Server };
  let browser: Browser;
  let keys: { test: string; live: string; regional: string; webmasterId: number; websiteId: number };

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`    skipped: ${CHROMIUM} is not installed (Debian: apt-get install -y chromium)`);
      this.skip();
    }
    app = await startTestApp({ trustProxy: true, geo: { countryHeader: 'X-Visitor-Country' } });
    host = await startHost(app.url);
    const { runtime } = app.provider;
    const webmaster = await createWebmasterFixture(runtime);
    const site = await createClientFixture(runtime, webmaster.id, { name: 'Night Shop', domain: 'shop.example' });
    const regional = await createClientFixture(runtime, webmaster.id, {
      name: 'Texas Shop',
      domain: 'texas.example',
      regions: ['US-TX'],
    });
    keys = {
      test: site.keys.TEST,
      live: site.keys.LIVE,
      regional: regional.keys.TEST,
      webmasterId: webmaster.id,
      websiteId: site.websiteId,
    };
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    host?.server.closeAllConnections();
    host?.server.close();
    await app?.close();
  });

  /** A page recording the checker's events and every script error or CSP violation Chromium reports. */
  async function open(
    context: BrowserContext,
    script: string,
  ): Promise<{ page: Page; problems: string[]; events: () => Promise<RecordedEvent[]> }> {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/favicon/.test(message.text())) problems.push(message.text());
    });
    await page.goto(`${host.url}/?script=${encodeURIComponent(script)}`);
    return {
      page,
      problems,
      events: () => page.evaluate(() => (globalThis as unknown as { recorded: RecordedEvent[] }).recorded),
    };
  }

  async function newContext(options: Parameters<Browser['newContext']>[0] = {}): Promise<BrowserContext> {
    const context = await browser.newContext({ locale: 'en-US', ...options });
    // Listening from outside the page (the host CSP allows no script of the page's own).
    await context.addInitScript(() => {
      const scope = globalThis as unknown as {
        recorded: RecordedEvent[];
        document: {
          addEventListener(type: string, listener: (event: { detail: Record<string, unknown> }) => void): void;
        };
      };
      scope.recorded = [];
      for (const type of ['load', 'ready', 'success', 'close', 'error']) {
        scope.document.addEventListener(`age-provider:${type}`, (event) =>
          scope.recorded.push({ type, detail: event.detail }),
        );
      }
    });
    return context;
  }

  async function waitForEvent(page: Page, type: string): Promise<RecordedEvent> {
    await page.waitForFunction(
      (wanted) =>
        (globalThis as unknown as { recorded: RecordedEvent[] }).recorded.some((event) => event.type === wanted),
      type,
    );
    const recorded = await page.evaluate(() => (globalThis as unknown as { recorded: RecordedEvent[] }).recorded);
    return recorded.find((event) => event.type === type)!;
  }

  async function verify(token: string) {
    const jwks = (await (await fetch(`${app.url}/v1/oauth2/jwks`)).json()) as JSONWebKeySet;
    return jwtVerify(token, createLocalJWKSet(jwks), {
      issuer: app.url,
      audience: keys.test,
      typ: 'age-verification+jwt',
    });
  }

  it('blurs the page behind a labelled dialog, verifies in a popup, and hands the page a token; the next page load remembers it', async () => {
    const context = await newContext();
    const { page, problems } = await open(context, `key=${keys.test}`);
    const dialog = page.getByRole('dialog', { name: 'Age verification required' });
    await dialog.waitFor();
    expect(await dialog.getAttribute('aria-modal')).to.equal('true');
    expect(
      await page.getByRole('link', { name: 'A link behind the overlay' }).count(),
      'the page behind is out of reach',
    ).to.equal(0);
    expect((await waitForEvent(page, 'ready')).detail).to.deep.equal({ required: true });
    const button = dialog.getByRole('button', { name: 'Verify my age with Age Provider' });
    expect(
      await button.evaluate(
        (element) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(
            element,
          ).backgroundColor,
      ),
    ).to.equal('rgb(0, 77, 179)');
    expect(await button.locator('svg').count(), 'the logo').to.equal(1);

    const [popup] = await Promise.all([page.waitForEvent('popup'), button.click()]);
    const closed = popup.waitForEvent('close');
    await passSandbox(popup, 'Night Shop');
    const success = await waitForEvent(page, 'success');
    await closed;
    const verification = success.detail;
    expect(verification).to.include({ verified: true, environment: 'TEST', reused: false });
    expect(Object.keys(verification).sort()).to.deep.equal([
      'ageThreshold',
      'assuranceLevel',
      'country',
      'countrySubdivision',
      'environment',
      'expiresAt',
      'expiresIn',
      'reused',
      'token',
      'uid',
      'verified',
    ]);
    const { payload } = await verify(verification.token as string);
    expect(payload.uid).to.equal(verification.uid);
    expect(await dialog.count(), 'the overlay is gone').to.equal(0);
    expect(await page.getByRole('link', { name: 'A link behind the overlay' }).isVisible()).to.equal(true);
    expect(problems, 'no script error, no CSP violation').to.deep.equal([]);

    const again = await open(context, `key=${keys.test}`);
    const remembered = await waitForEvent(again.page, 'success');
    expect(remembered.detail).to.include({ uid: verification.uid, reused: true, token: verification.token });
    expect((await again.events()).map((event) => event.type)).to.deep.equal(['load', 'ready', 'success']);
    expect(await again.page.getByRole('dialog').count()).to.equal(0);
    expect(again.problems).to.deep.equal([]);
    await context.close();
  });

  it('takes a result that reaches the page after its window closed as the result, not as the visitor leaving', async () => {
    const context = await newContext();
    // The window posts its result and closes; under load the page can see the window closed before the message
    // arrives. Here every result message is held back 800 ms, past the page's next look at the window (every 500 ms).
    await context.addInitScript(() => {
      type Message = {
        data: { type?: string } | null;
        origin: string;
        source: unknown;
        stopImmediatePropagation(): void;
      };
      const scope = globalThis as unknown as {
        addEventListener(type: string, listener: (event: Message) => void, capture: boolean): void;
        dispatchEvent(event: unknown): void;
        setTimeout(callback: () => void, ms: number): void;
        MessageEvent: new (type: string, init: { data: unknown; origin: string; source: unknown }) => unknown;
      };
      const late = new WeakSet<object>();
      scope.addEventListener(
        'message',
        (event) => {
          if (event.data?.type !== 'age-provider:result' || late.has(event as object)) return;
          event.stopImmediatePropagation();
          scope.setTimeout(() => {
            const again = new scope.MessageEvent('message', {
              data: event.data,
              origin: event.origin,
              source: event.source,
            });
            late.add(again as object);
            scope.dispatchEvent(again);
          }, 800);
        },
        true,
      );
    });
    const { page, problems } = await open(context, `key=${keys.test}`);
    const button = page.getByRole('dialog').getByRole('button', { name: 'Verify my age with Age Provider' });
    const [popup] = await Promise.all([page.waitForEvent('popup'), button.click()]);
    const closed = popup.waitForEvent('close');
    await passSandbox(popup, 'Night Shop');
    await closed;
    expect((await waitForEvent(page, 'success')).detail).to.include({ verified: true, environment: 'TEST' });
    await page.waitForTimeout(1500);
    expect(
      (await page.evaluate(() => (globalThis as unknown as { recorded: RecordedEvent[] }).recorded)).map(
        (event) => event.type,
      ),
    ).to.deep.equal(['load', 'ready', 'success']);
    expect(problems).to.deep.equal([]);
    await context.close();
  });

  it('shows nothing where verification is not required, and says so with ready', async () => {
    const context = await newContext();
    await context.route('**/v1/checker/requirement.js*', (route) =>
      route.continue({ headers: { ...route.request().headers(), 'x-visitor-country': 'FR' } }),
    );
    const { page, problems } = await open(context, `key=${keys.regional}`);
    expect((await waitForEvent(page, 'ready')).detail).to.deep.equal({ required: false });
    expect(await page.getByRole('dialog').count()).to.equal(0);
    expect(problems).to.deep.equal([]);
    await context.close();
  });

  it('is completed with the keyboard alone: focus starts on the button, stays in the dialog, Enter opens the window', async () => {
    const context = await newContext();
    const { page } = await open(context, `key=${keys.test}&language=fr`);
    const dialog = page.getByRole('dialog', { name: 'Vérification de l’âge requise' });
    await dialog.waitFor();
    const focused = () =>
      page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { textContent: string } } }).document.activeElement
            .textContent,
      );
    expect((await focused()).trim()).to.equal('Vérifier mon âge avec Age Provider');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Shift+Tab');
    expect((await focused()).trim(), 'focus is trapped').to.equal('Vérifier mon âge avec Age Provider');
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.keyboard.press('Enter')]);
    await popup.waitForLoadState();
    expect(
      await popup.evaluate(
        () =>
          (globalThis as unknown as { document: { documentElement: { lang: string } } }).document.documentElement.lang,
      ),
    ).to.equal('fr');
    await popup.close();
    expect((await waitForEvent(page, 'close')).detail).to.deep.equal({});
    await context.close();
  });

  it('target=redirect works without popups: the page comes back with the result in its fragment', async () => {
    const context = await newContext();
    const { page, problems } = await open(context, `key=${keys.test}&target=redirect`);
    page.on('popup', () => problems.push('a popup opened'));
    await page.getByRole('button', { name: 'Verify my age with Age Provider' }).click();
    await passSandbox(page, 'Night Shop');
    const success = await waitForEvent(page, 'success').catch(async (e) => {
      console.log(page.url(), await page.content());
      throw e;
    });
    expect(success.detail).to.include({ verified: true, reused: false });
    expect(page.url(), 'the fragment is cleared').not.to.include('#');
    await verify(success.detail.token as string);
    expect(problems).to.deep.equal([]);
    await context.close();
  });

  it('a token put in the address by someone else counts only when our key signed it (checked in the page, WebCrypto)', async () => {
    // Signed here with node:crypto, not with the page's WebCrypto: the service's own key, another key under the same
    // kid, and no signature at all.
    const signing = testSecrets.jwks.keys[0] as JWK & { kid: string };
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: app.url,
      aud: keys.test,
      verified: true,
      uid: 'test_forged',
      environment: 'TEST',
      iat: now,
      exp: now + 600,
    };
    const tokenSignedWith = (key: KeyObject | undefined, alg = 'RS256'): string => {
      const input = `${encode({ alg, kid: signing.kid, typ: 'age-verification+jwt' })}.${encode(claims)}`;
      return `${input}.${key ? createSign('RSA-SHA256').update(input).sign(key).toString('base64url') : ''}`;
    };
    const outcome = async (token: string): Promise<RecordedEvent> => {
      const context = await newContext();
      const page = await context.newPage();
      await page.goto(
        `${host.url}/?script=${encodeURIComponent(`key=${keys.test}&target=redirect&nostart`)}#age_provider_token=${token}`,
      );
      const event = await Promise.race([waitForEvent(page, 'success'), waitForEvent(page, 'error')]);
      expect(page.url(), 'the fragment is cleared').not.to.include('#');
      await context.close();
      return event;
    };

    const genuine = await outcome(tokenSignedWith(createPrivateKey({ key: signing, format: 'jwk' })));
    expect(genuine.type).to.equal('success');
    expect(genuine.detail).to.include({ verified: true, uid: 'test_forged' });
    for (const [what, token] of [
      ['another key', tokenSignedWith(other)],
      ['no signature', tokenSignedWith(undefined, 'none')],
      ['not a token', 'forged'],
    ] as const) {
      const forged = await outcome(token);
      expect(forged.type, what).to.equal('error');
      expect(forged.detail, what).to.include({ error: 'invalid_token' });
    }
  });

  it('a page on a foreign origin gets origin_not_allowed and nothing else; a regenerated key gets invalid_key', async () => {
    const context = await newContext();
    // A LIVE key only works on https pages of shop.example.
    const foreign = await open(context, `key=${keys.live}`);
    expect((await waitForEvent(foreign.page, 'error')).detail).to.include({ error: 'origin_not_allowed' });
    expect((await foreign.events()).map((event) => event.type)).to.deep.equal(['load', 'error']);
    expect(await foreign.page.getByRole('dialog').count()).to.equal(0);

    const old = keys.test;
    await regenerateWebsiteKey(app.provider.runtime, keys.webmasterId, keys.websiteId, 'TEST', TEST_ORIGIN);
    const replaced = await open(context, `key=${old}`);
    expect((await waitForEvent(replaced.page, 'error')).detail).to.include({ error: 'invalid_key' });
    expect(await replaced.page.getByRole('dialog').count()).to.equal(0);
    await context.close();
  });
});
