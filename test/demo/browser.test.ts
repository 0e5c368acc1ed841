import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import type { Demo } from '../../examples/demo/demo.js';
import { updateWebsite } from '../../lib/websites/index.js';
import { passSandbox, passSandboxToResult, startTestDemo, watchProblems, type TestDemo } from '../helpers/demo.js';
import { TEST_ORIGIN } from '../helpers/fixtures.js';

const CHROMIUM = '/usr/bin/chromium';

/** The one browser global the page functions use (the project compiles without the DOM library). */
interface BrowserGlobals {
  getComputedStyle(element: unknown): { backgroundColor: string };
}
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

describe('the demo in a browser (Debian chromium, headless)', function () {
  this.timeout(120_000);
  let started: TestDemo | undefined;
  let demo: Demo | undefined;
  let browser: Browser | undefined;

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`    skipped: ${CHROMIUM} is not installed (Debian: apt-get install -y chromium)`);
      this.skip();
    }
    // Geolocation from a trusted proxy's header, which the last test sets the way a CDN would.
    started = await startTestDemo('age-provider-browser-', {
      env: { GEO_COUNTRY_HEADER: 'X-Visitor-Country' },
      trustProxy: true,
    });
    demo = started.demo;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await started?.close();
  });

  it('a visitor clicks "Verify my age", passes the sandbox in the new window, and the shop shows the result', async () => {
    const page = await browser!.newPage();
    // Script errors and CSP violations in the shop's window (a missing favicon is not one of them).
    const problems = watchProblems(page);
    await page.goto(demo!.relyingPartyUrl);

    // The requirement script ran under the shop's CSP and kept the gate (every region requires verification here).
    // No geolocation source is configured here: the location is unknown, and the gate says so in words.
    await page.getByText('We could not tell where you are, so age verification is required').waitFor();
    const button = page.getByRole('link', { name: 'Verify my age with Age Provider' });
    expect(
      await button.evaluate(
        (element) => (globalThis as unknown as BrowserGlobals).getComputedStyle(element).backgroundColor,
      ),
    ).to.equal('rgb(0, 77, 179)');
    expect(
      await button.locator('img').evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth),
      'the logo loads',
    ).to.be.above(0);

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

  it('offers passkeys on its default address, and saving the result to one works (virtual authenticator)', async () => {
    // The demo's default issuer is named (localhost), which WebAuthn accepts as relying-party id; an IP address it refuses.
    expect(new URL(demo!.providerUrl).hostname).to.equal('localhost');
    expect(
      new URL(demo!.relyingPartyUrl).hostname,
      'the shop on the same name: its redirect host is the one visitors see',
    ).to.equal('localhost');
    const context = await browser!.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const problems = watchProblems(page);
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    // In one window (the shop's no-JavaScript path), so the authenticator belongs to the page the ceremony runs in.
    await page.goto(`${demo!.relyingPartyUrl}/verify`);
    await passSandboxToResult(page);
    await page.getByRole('button', { name: 'Save to a passkey' }).click();
    await page.getByText('Your result is saved to your passkey.').waitFor();
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).to.have.length(1);
    expect(credentials[0]).to.include({ rpId: 'localhost', isResidentCredential: true });
    await page.getByRole('button', { name: `Continue to ${demo!.seed.website.name}` }).click();
    await page.getByRole('heading', { name: 'Your age is verified' }).waitFor();
    expect(new URL(page.url()).origin).to.equal(demo!.relyingPartyUrl);
    expect(problems).to.deep.equal([]);
    await context.close();
  });

  it("where the website's regions do not require verification, the shop opens without its gate", async () => {
    const { webmaster, website } = demo!.seed;
    await updateWebsite(demo!.provider.runtime, webmaster.id, website.id, { regions: ['US-TX'] }, TEST_ORIGIN);
    const page = await browser!.newPage();
    await page.route('**/v1/requirement?*', (route) =>
      route.continue({ headers: { ...route.request().headers(), 'x-visitor-country': 'FR' } }),
    );
    await page.goto(demo!.relyingPartyUrl);
    await page.getByText('Age verification is not required where you are (France)').waitFor();
    expect(await page.getByRole('heading', { name: 'This shop is for adults only' }).isVisible()).to.equal(false);
    expect(
      await page.getByRole('link', { name: 'Verify my age with Age Provider' }).isVisible(),
      'verifying stays possible',
    ).to.equal(true);
  });
});
