import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { axeViolations, CHROMIUM, CHROMIUM_ARGS, openPage, VIEWPORTS } from '../helpers/chromium.js';
import { createClientFixture, createWebmasterFixture, type WebmasterFixture } from '../helpers/fixtures.js';

// The policy page in a real browser, at desktop size and 390 px: axe finds nothing, the page does not scroll
// sideways (the table scrolls in its own region), and both editors, the form and the JSON, work with the keyboard alone.

describe('webmasters platform: the policy page in a browser (Debian chromium, headless)', function () {
  this.timeout(120_000);
  let app: TestApp | undefined;
  let browser: Browser | undefined;
  let webmaster: WebmasterFixture;
  let websiteId: number;

  before(async function () {
    if (!existsSync(CHROMIUM)) this.skip();
    app = await startTestApp({ env: { POLICY_PRESETS: 'eu-default,fr,gb,us-tx,us-ms' } });
    webmaster = await createWebmasterFixture(app.provider.runtime);
    ({ websiteId } = await createClientFixture(app.provider.runtime, webmaster.id, {
      name: 'Shop with a policy',
      regions: ['FR', 'GB', 'US-TX'],
    }));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    it(`shows the table and refuses, then saves, rules with the keyboard at ${size} size (${viewport.width} px), axe-clean`, async () => {
      // Each size starts from a website without rules of its own.
      await app!.provider.db('websites').where({ id: websiteId }).update({ policy_rules: '[]' });
      const { context, page, problems } = await openPage(browser!, viewport);
      const base = app!.url;
      await page.goto(`${base}/platform/signin`);
      await page.getByLabel('Email').fill(webmaster.email);
      await page.getByLabel('Password').fill(webmaster.password);
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.pathname === '/platform/websites');
      await page.goto(`${base}/platform/websites/${websiteId}/settings`);
      await page.getByRole('link', { name: 'See and edit the policy' }).click();
      await page.getByRole('heading', { name: 'Policy of Shop with a policy' }).waitFor();
      expect(await axeViolations(page), `policy page at ${size}`).to.deep.equal([]);
      expect(
        await page.evaluate(
          () =>
            (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
              .documentElement.scrollWidth,
        ),
        'no sideways scrolling of the page',
      ).to.be.at.most(viewport.width);

      // The form, with the keyboard alone: a loosening age is refused, the summary's link leads to the field.
      const regions = page.getByLabel('Regions', { exact: true });
      await regions.focus();
      await page.keyboard.type('US-TX');
      await page.keyboard.press('Tab'); // the "required" box
      await page.keyboard.press('Space');
      await page.keyboard.press('Tab');
      await page.keyboard.type('17');
      await page.keyboard.press('Enter');
      await page.locator('#form-errors').waitFor();
      expect(await axeViolations(page), `policy form with an error at ${size}`).to.deep.equal([]);
      const link = page.locator('#form-errors a[href="#rule-0-ageThreshold"]');
      await link.focus();
      await page.keyboard.press('Enter');
      expect(
        await page.evaluate(
          () => (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement.id,
        ),
      ).to.equal('rule-0-ageThreshold');
      await page.keyboard.press('Control+A');
      await page.keyboard.type('21');
      await page.keyboard.press('Enter');
      await page.getByText('The rules were saved.').waitFor();
      expect(await page.getByRole('row', { name: /Texas US-TX/ }).innerText()).to.contain('Your rule 1');
      expect(await axeViolations(page), `policy form saved at ${size}`).to.deep.equal([]);

      // The same rules as JSON, folded under the form, opened from the keyboard.
      await page.locator('summary', { hasText: 'Edit the same rules as JSON' }).focus();
      await page.keyboard.press('Enter');
      const editor = page.getByLabel('Your rules, as JSON');
      expect(JSON.parse(await editor.inputValue())).to.deep.equal([
        { regions: ['US-TX'], required: true, ageThreshold: 21 },
      ]);
      await editor.fill('[{"regions": ["US-TX"], "ageThreshold": 17}]');
      await editor.press('Tab');
      await page.keyboard.press('Enter');
      await page.locator('#policy-rules-error').waitFor();
      expect(await editor.getAttribute('aria-invalid')).to.equal('true');
      expect(await axeViolations(page), `policy page with an error at ${size}`).to.deep.equal([]);

      await editor.fill(
        '[{"regions": ["FR"], "challenges": ["eu_av", "ticket"], "minimumAssuranceLevel": "ENHANCED"}]',
      );
      await editor.press('Tab');
      await page.keyboard.press('Enter');
      await page.getByText('The rules were saved.').waitFor();
      expect(await page.getByRole('row', { name: /France FR/ }).innerText()).to.contain('Your rule 1');
      expect(await page.getByLabel('Regions', { exact: true }).first().inputValue()).to.equal('FR');
      expect(await axeViolations(page), `policy page saved at ${size}`).to.deep.equal([]);
      expect(problems).to.deep.equal([]);
      await context.close();
    });
  }
});
