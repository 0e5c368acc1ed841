import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startDemo, type Demo } from '../../examples/demo/demo.js';
import { updateWebsite } from '../../lib/websites/index.js';
import { testSecrets } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const CHROMIUM = '/usr/bin/chromium';

/** The one browser global the page functions use (the project compiles without the DOM library). */
interface BrowserGlobals {
  getComputedStyle(element: unknown): { backgroundColor: string };
}
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** The TEST sandbox as a person clicks through it: accept, first challenge, "pass", continue to the website. */
async function passSandbox(popup: Page, websiteName: string): Promise<void> {
  await popup.getByRole('button', { name: 'Accept and continue' }).click();
  const choice = popup.getByRole('heading', { name: 'Choose how to prove your age' });
  const sandbox = popup.getByRole('radio', { name: /^Pass/ });
  await choice.or(sandbox).first().waitFor();
  if (await choice.isVisible()) await popup.locator('ul.choices a.button').first().click();
  await sandbox.check();
  await popup.getByRole('button', { name: 'Send this result' }).click();
  await popup.getByRole('button', { name: `Continue to ${websiteName}` }).click();
}

describe('the demo in a browser (Debian chromium, headless)', function () {
  this.timeout(120_000);
  let database: TestDatabase | undefined;
  let dataDir: string | undefined;
  let demo: Demo | undefined;
  let browser: Browser | undefined;

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`    skipped: ${CHROMIUM} is not installed (Debian: apt-get install -y chromium)`);
      this.skip();
    }
    database = await createTestDatabase();
    dataDir = await mkdtemp(join(tmpdir(), 'age-provider-browser-'));
    // Geolocation from a trusted proxy's header, which the last test sets the way a CDN would.
    demo = await startDemo({ env: { GEO_COUNTRY_HEADER: 'X-Visitor-Country' }, trustProxy: true, logLevel: 'silent', dataDir, port: 0, ...testSecrets, db: database.db, ...(database.url ? { databaseUrl: database.url } : {}) });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
    await database?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('a visitor clicks "Verify my age", passes the sandbox in the new window, and the shop shows the result', async () => {
    const page = await browser!.newPage();
    const problems: string[] = [];
    // Script errors and CSP violations in the shop's window (a missing favicon is not one of them).
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => { if (message.type() === 'error' && !/status of 404/.test(message.text())) problems.push(message.text()); });
    page.on('response', (response) => { if (response.status() >= 400 && !response.url().endsWith('/favicon.ico')) problems.push(`${response.status()} ${response.url()}`); });
    await page.goto(demo!.relyingPartyUrl);

    // The requirement script ran under the shop's CSP and kept the gate (every region requires verification here).
    // No geolocation source is configured here: the location is unknown, and the gate says so in words.
    await page.getByText('We could not tell where you are, so age verification is required').waitFor();
    const button = page.getByRole('link', { name: 'Verify my age with Age Provider' });
    expect(await button.evaluate((element) => (globalThis as unknown as BrowserGlobals).getComputedStyle(element).backgroundColor)).to.equal('rgb(0, 77, 179)');
    expect(await button.locator('img').evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth), 'the logo loads').to.be.above(0);

    const [popup] = await Promise.all([page.waitForEvent('popup'), button.click()]);
    const closed = popup.waitForEvent('close');
    await passSandbox(popup, demo!.seed.website.name);

    // Back in the shop's window: the popup handed over and closed itself.
    await page.getByRole('heading', { name: 'Your age is verified' }).waitFor();
    await closed;
    expect(await page.locator('dl').innerText()).to.match(/Verification id\s+test_/);
    expect(problems).to.deep.equal([]);
  });

  it('without JavaScript the button opens the flow in the same window and comes back to the shop', async () => {
    const context = await browser!.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(demo!.relyingPartyUrl);
    await page.getByRole('link', { name: 'Verify my age with Age Provider' }).click();
    await page.waitForURL((url) => url.origin === demo!.providerUrl);
    await passSandbox(page, demo!.seed.website.name);
    await page.getByRole('heading', { name: 'Your age is verified' }).waitFor();
    expect(new URL(page.url()).origin).to.equal(demo!.relyingPartyUrl);
    await context.close();
  });

  it("where the website's regions do not require verification, the shop opens without its gate", async () => {
    const { webmaster, website } = demo!.seed;
    await updateWebsite(demo!.provider.runtime, webmaster.id, website.id, { regions: ['US-TX'] });
    const page = await browser!.newPage();
    await page.route('**/v1/requirement?*', (route) => route.continue({ headers: { ...route.request().headers(), 'x-visitor-country': 'FR' } }));
    await page.goto(demo!.relyingPartyUrl);
    await page.getByText('Age verification is not required where you are (France)').waitFor();
    expect(await page.getByRole('heading', { name: 'This shop is for adults only' }).isVisible()).to.equal(false);
    expect(await page.getByRole('link', { name: 'Verify my age with Age Provider' }).isVisible(), 'verifying stays possible').to.equal(true);
  });
});
