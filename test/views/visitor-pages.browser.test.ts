import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { startDemo, type Demo } from '../../examples/demo/demo.js';
import { testSecrets } from '../helpers/app.js';
import { axeViolations, CHROMIUM, CHROMIUM_ARGS, openPage, VIEWPORTS } from '../helpers/chromium.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

// Every state of the visitor's pages in a real browser, at desktop size and 390 px wide, with an operator's
// branding: axe finds no violation, and the whole flow can be completed with the keyboard alone.
// SCREENSHOTS=<folder> also saves each state as a PNG, to look at.

const BRANDING = {
  name: 'Trustcheck',
  color: '#1d4ed8',
  operatorName: 'Trustcheck GmbH',
  privacyPolicyUrl: 'https://trustcheck.example/privacy',
  termsUrl: 'https://trustcheck.example/terms',
  supportEmail: 'help@trustcheck.example',
};

/** Tabs until `target` has the focus (as a keyboard user does), then presses Enter or Space on it. */
async function activateByKeyboard(page: Page, target: Locator, key: 'Enter' | 'Space' = 'Enter'): Promise<void> {
  for (let presses = 0; presses < 60; presses += 1) {
    await page.keyboard.press('Tab');
    const focused = await target.evaluate(
      (element) =>
        element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement,
    );
    if (focused) {
      await page.keyboard.press(key);
      return;
    }
  }
  throw new Error(`could not reach ${String(target)} with the Tab key on ${page.url()}`);
}

describe('the visitor pages in a browser: axe, 390 px, keyboard only (Debian chromium, headless)', function () {
  this.timeout(240_000);
  let database: TestDatabase | undefined;
  let dataDir: string | undefined;
  let demo: Demo | undefined;
  let browser: Browser | undefined;
  const screenshots = process.env['SCREENSHOTS'];

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`    skipped: ${CHROMIUM} is not installed (Debian: apt-get install -y chromium)`);
      this.skip();
    }
    database = await createTestDatabase();
    dataDir = await mkdtemp(join(tmpdir(), 'age-provider-design-'));
    demo = await startDemo({
      branding: BRANDING,
      logLevel: 'silent',
      dataDir,
      port: 0,
      ...testSecrets,
      db: database.db,
      ...(database.url ? { databaseUrl: database.url } : {}),
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    if (screenshots) await mkdir(screenshots, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
    await database?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    it(`every page state at ${size} size (${viewport.width} px) has no axe violation and shows the operator's brand`, async () => {
      const { context, page, problems } = await openPage(browser!, viewport);
      const checked: string[] = [];
      const check = async (state: string): Promise<void> => {
        expect(await axeViolations(page), `${state} at ${size}`).to.deep.equal([]);
        if (screenshots)
          await page.screenshot({
            path: join(screenshots, `${size}-${checked.length + 1}-${state}.png`),
            fullPage: true,
          });
        checked.push(state);
      };

      await page.goto(`${demo!.relyingPartyUrl}/verify`);
      const header = page.getByRole('banner');
      expect(await header.innerText()).to.contain('Trustcheck');
      expect(await page.getByRole('contentinfo').innerText())
        .to.contain('Trustcheck GmbH')
        .and.contain('Privacy policy')
        .and.contain('Terms of use');
      expect(await page.locator('.asking').innerText())
        .to.contain(demo!.seed.website.name)
        .and.contain(new URL(demo!.relyingPartyUrl).host)
        .and.contain('Domain localhost verified')
        .and.not.contain('not verified');
      expect(await page.locator('[aria-current="step"]').innerText()).to.contain('Request');
      expect(await page.locator('.sandbox').textContent()).to.contain('Test mode');
      await check('prompt');

      await page.getByRole('button', { name: 'Accept and continue' }).click();
      await page.getByRole('heading', { name: 'Choose how to prove your age' }).waitFor();
      const cards = page.locator('ul.choices li');
      expect(await cards.count()).to.be.above(1);
      expect(await cards.first().innerText())
        .to.match(/Takes/)
        .and.match(/Leaves your device/);
      await check('choose');

      await page.locator('ul.choices a.button').first().click();
      await page.getByRole('radio', { name: /^Refuse/ }).check();
      await check('challenge');
      await page.getByRole('button', { name: 'Send this result' }).click();
      const refusal = page.locator('.state.refused');
      await refusal.waitFor();
      const refusalColour = await refusal.evaluate(
        (element) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(
            element,
          ).backgroundColor,
      );
      await check('refused');

      await page.locator('ul.choices a.button').first().click();
      await page.getByRole('radio', { name: /^Pass/ }).check();
      await page.getByRole('button', { name: 'Send this result' }).click();
      const success = page.locator('.state.success');
      await success.waitFor();
      const successColour = await success.evaluate(
        (element) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(
            element,
          ).backgroundColor,
      );
      expect(refusalColour, 'a refusal never looks like a success').not.to.equal(successColour);
      await check('result');

      await page.getByLabel('Username').fill('x');
      await page.getByLabel('Choose a password').fill('short');
      await page.getByRole('button', { name: 'Save and continue' }).click();
      const summary = page.locator('.error-summary');
      await summary.waitFor();
      expect(await summary.locator('a').count(), 'every problem of the form at once').to.equal(3);
      expect(await page.getByLabel('Username').inputValue(), 'what the visitor typed stays').to.equal('x');
      await check('result-errors');

      await page.goto(
        `${demo!.providerUrl}/v1/oauth2/checker?client_id=unknown-client&response_type=code&redirect_uri=https%3A%2F%2Fx.example%2Fcb&scope=age&state=s`,
      );
      const disclosure = page.locator('details.developer');
      await disclosure.locator('summary').click();
      expect(await disclosure.innerText())
        .to.contain('invalid_client')
        .and.contain('unknown-client');
      await check('developer-error');

      expect(checked).to.have.length(7);
      expect(problems).to.deep.equal([]);
      await context.close();
    });
  }

  it('a visitor completes the whole flow with the keyboard alone', async () => {
    const context = await browser!.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    await page.goto(`${demo!.relyingPartyUrl}/verify`);
    await activateByKeyboard(page, page.getByRole('button', { name: 'Accept and continue' }));
    await page.getByRole('heading', { name: 'Choose how to prove your age' }).waitFor();
    await activateByKeyboard(page, page.locator('ul.choices a.button').first());
    const pass = page.getByRole('radio', { name: /^Pass/ });
    await pass.waitFor();
    await activateByKeyboard(page, pass, 'Space');
    await activateByKeyboard(page, page.getByRole('button', { name: 'Send this result' }));
    await activateByKeyboard(page, page.getByRole('button', { name: `Continue to ${demo!.seed.website.name}` }));
    await page.getByRole('heading', { name: 'Your age is verified' }).waitFor();
    expect(new URL(page.url()).origin).to.equal(demo!.relyingPartyUrl);
    await context.close();
  });
});
