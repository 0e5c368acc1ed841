/**
 * `npm run screenshots`: drives the demo in headless chromium and writes docs/screenshots/*.png — the visitor flow
 * (prompt, method choice, result) and the platform's website page (Overview, Integrate, Settings, Webhooks and one
 * webhook message, Activity) and policy editor, each at a desktop's width and a phone's — so the README's pictures are
 * made, not drawn, and can be refreshed after any change to the pages. Labels come from the English catalogue, not
 * from this file.
 *
 * Needs chromium (Debian: apt-get install -y chromium; CHROMIUM=/path/to/chrome overrides /usr/bin/chromium).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { catalogues } from '../../lib/i18n/catalogue.js';
import { packageRoot } from '../../lib/paths.js';
import { startDemo } from './demo.js';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
const OUT = join(packageRoot, 'docs', 'screenshots');
const VISITOR_VIEWPORT = { width: 960, height: 900 };
/** The platform's pages at a desktop's width and a phone's, the widths test/views checks them at. */
const PLATFORM_VIEWPORTS = { 1280: { width: 1280, height: 900 }, 390: { width: 390, height: 844 } } as const;
/** The TEST flows run through the `test_outcome` shortcut, after the visitor's own: the Overview's day, the webhook's deliveries. */
const SHORTCUT_OUTCOMES = ['pass', 'pass', 'refuse', 'pass'];
/** The website's own rules in the policy editor: visitors from France verify with a stronger method, reused for an hour at most. */
const DEMO_RULES = [
  { regions: ['FR'], challenges: ['selfie', 'ticket'], minimumAssuranceLevel: 'ENHANCED', reuseMaxAgeSeconds: 3600 },
];

const en = catalogues.en;
const label = (key: string, params: Record<string, string> = {}): string =>
  en[key]!.replace(/\{(\w+)\}/g, (whole, name: string) => params[name] ?? whole);

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
  console.log(`docs/screenshots/${name}.png`);
}

/** The webmaster's server as far as the Webhooks section needs one: it accepts every delivery. */
async function startReceiver(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}/age-provider/webhooks`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Polls `ready` every 200 ms for up to 10 s. */
async function waitFor(ready: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 50; tries += 1) {
    if (await ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the platform did not show the expected state within 10 s');
}

async function main(): Promise<void> {
  await mkdir(OUT, { recursive: true });
  const dataDir = await mkdtemp(join(tmpdir(), 'age-provider-screenshots-'));
  const receiver = await startReceiver();
  // Statistics rolled up and webhooks delivered within the run; the receiver is on this machine, which the operator allows.
  const env = {
    STATISTICS_ROLLUP_INTERVAL_MS: '200',
    WEBHOOK_POLL_INTERVAL_MS: '200',
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
  };
  const demo = await startDemo({ env, dataDir, port: 0, logLevel: 'silent' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const { website, webmaster } = demo.seed;

    // The visitor flow, in the window the shop's button opens.
    const shop = await browser.newPage({ viewport: VISITOR_VIEWPORT, locale: 'en-GB' });
    await shop.goto(demo.relyingPartyUrl);
    const [popup] = await Promise.all([
      shop.waitForEvent('popup'),
      // the demo shop's own verify button (examples/relying-party, in English: env has no SITE_LANGUAGE)
      shop.getByRole('link', { name: /^Verify my age/ }).click(),
    ]);
    await popup.setViewportSize(VISITOR_VIEWPORT);
    const accept = popup.getByRole('button', { name: label('interaction.prompt.accept') });
    await accept.waitFor();
    await shoot(popup, 'visitor-prompt');
    await accept.click();
    const method = popup.locator('a[href*="/challenge/"], form[action*="/challenge/"] button').first();
    await method.waitFor();
    await shoot(popup, 'visitor-choose');
    await method.click();
    await popup.getByRole('radio', { name: label('challenges.sandbox.outcome.pass') }).check();
    await popup.getByRole('button', { name: label('challenges.sandbox.submit') }).click();
    await popup
      .getByRole('button', { name: label('interaction.result.continue', { website: website.name }) })
      .waitFor();
    await shoot(popup, 'visitor-result');

    // The platform, signed in as the demo webmaster.
    if (!webmaster.password)
      throw new Error('the demo webmaster existed already: its password is unknown (use a fresh data directory)');
    const platform = await browser.newPage({ viewport: PLATFORM_VIEWPORTS[1280], locale: 'en-GB' });
    await platform.goto(`${demo.providerUrl}/platform/signin`);
    await platform.getByLabel(label('platform.field.email')).fill(webmaster.email);
    await platform.getByLabel(label('platform.field.password')).fill(webmaster.password);
    await platform.getByLabel(label('platform.field.password')).press('Enter');
    await platform.waitForURL(`${demo.providerUrl}/platform/websites`);
    const websitePath = `${demo.providerUrl}/platform/websites/${website.id}`;

    // One webhook, added before the flows below so that it is told of each (its signing secret, shown once, is not pictured).
    await platform.goto(`${websitePath}/webhooks`);
    await platform.getByLabel(label('platform.webhooks.url')).fill(receiver.url);
    await platform.getByRole('button', { name: label('platform.webhooks.addButton') }).click();
    await platform.locator('#new-secret').waitFor();

    // More TEST flows, each followed up to the shop's callback with a code (not into it: the shop expects its own state).
    const callback = demo.seed.oauth2.redirectUris[0]!;
    for (const outcome of SHORTCUT_OUTCOMES) {
      const query = new URLSearchParams({
        client_id: demo.seed.oauth2.clientId,
        redirect_uri: callback,
        response_type: 'code',
        scope: 'read',
        state: 'screenshots',
        test_outcome: outcome,
      });
      let next = `${demo.providerUrl}/v1/oauth2/checker?${query.toString()}`;
      while (!next.startsWith(callback)) {
        const location = (await shop.request.get(next, { maxRedirects: 0 })).headers()['location'];
        if (!location) throw new Error(`the test_outcome=${outcome} flow stopped at ${next}`);
        next = new URL(location, next).href;
      }
    }
    // Each passed flow's verification.completed, delivered to the receiver (a refusal sends none: docs/webhooks.md).
    const passed = SHORTCUT_OUTCOMES.filter((outcome) => outcome === 'pass').length;
    await waitFor(async () => {
      await platform.goto(`${websitePath}/webhooks`);
      return (await platform.getByRole('table').getByText('verification.completed').count()) === passed;
    });
    // The newest delivery's message, as its row links to it.
    const messageHref = await platform.getByRole('table').getByRole('link').first().getAttribute('href');

    // Changes the Activity section records with their before and after: the website's own rules, a new LIVE key.
    await platform.goto(`${websitePath}/policy`);
    // The JSON editor is folded under the form.
    await platform.locator('summary', { hasText: label('platform.policy.form.asJson') }).click();
    await platform.getByLabel(label('platform.policy.rulesLabel')).fill(JSON.stringify(DEMO_RULES));
    await platform.getByRole('button', { name: label('platform.policy.saveJson') }).click();
    await platform.getByText(label('platform.policy.saved')).waitFor();
    await platform.goto(`${websitePath}/keys/live/regenerate`);
    await platform.getByRole('button', { name: label('platform.keys.regenerate', { environment: 'LIVE' }) }).click();
    await platform.waitForURL(
      (url) => url.pathname.startsWith(new URL(websitePath).pathname) && !url.pathname.endsWith('/regenerate'),
    );

    // The Overview draws from the rolled-up statistics: wait until every flow above is counted.
    const totals = label('platform.statistics.totals', {
      started: String(1 + SHORTCUT_OUTCOMES.length),
      passed: String(1 + passed),
      reused: '0',
      refused: String(SHORTCUT_OUTCOMES.length - passed),
      abandoned: '0',
    });
    await waitFor(async () => {
      await platform.goto(websitePath);
      return (await platform.locator('figure.chart figcaption').allTextContents()).includes(totals);
    });

    const pages = {
      overview: '',
      integrate: '/integrate',
      settings: '/settings',
      webhooks: '/webhooks',
      'webhook-message': messageHref!.slice(new URL(websitePath).pathname.length),
      activity: '/activity',
      policy: '/policy',
    };
    for (const [width, viewport] of Object.entries(PLATFORM_VIEWPORTS)) {
      await platform.setViewportSize(viewport);
      for (const [name, path] of Object.entries(pages)) {
        await platform.goto(`${websitePath}${path}`);
        await shoot(platform, `platform-${name}-${width}`);
      }
    }
  } finally {
    await browser.close();
    await demo.close();
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
