/**
 * `npm run screenshots`: drives the demo in headless chromium and writes docs/screenshots/*.png — the visitor flow
 * (prompt, method choice, result) and the platform's website page — so the README's pictures are made, not drawn,
 * and can be refreshed after any change to the pages. Labels come from the English catalogue, not from this file.
 *
 * Needs chromium (Debian: apt-get install -y chromium; CHROMIUM=/path/to/chrome overrides /usr/bin/chromium).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
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
const PLATFORM_VIEWPORT = { width: 1280, height: 900 };

const en = catalogues.en;
const label = (key: string, params: Record<string, string> = {}): string =>
  en[key]!.replace(/\{(\w+)\}/g, (whole, name: string) => params[name] ?? whole);

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
  console.log(`docs/screenshots/${name}.png`);
}

async function main(): Promise<void> {
  await mkdir(OUT, { recursive: true });
  const dataDir = await mkdtemp(join(tmpdir(), 'age-provider-screenshots-'));
  const demo = await startDemo({ env: {}, dataDir, port: 0, logLevel: 'silent' });
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
    await popup.getByRole('button', { name: label('interaction.result.continue', { website: website.name }) }).waitFor();
    await shoot(popup, 'visitor-result');

    // The platform, signed in as the demo webmaster: the website page with its Integrate section.
    if (!webmaster.password) throw new Error('the demo webmaster existed already: its password is unknown (use a fresh data directory)');
    const platform = await browser.newPage({ viewport: PLATFORM_VIEWPORT, locale: 'en-GB' });
    await platform.goto(`${demo.providerUrl}/platform/signin`);
    await platform.getByLabel(label('platform.field.email')).fill(webmaster.email);
    await platform.getByLabel(label('platform.field.password')).fill(webmaster.password);
    await platform.getByLabel(label('platform.field.password')).press('Enter');
    await platform.waitForURL(`${demo.providerUrl}/platform/websites`);
    await platform.goto(`${demo.providerUrl}/platform/websites/${website.id}/integrate`);
    await shoot(platform, 'platform-website');
  } finally {
    await browser.close();
    await demo.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
