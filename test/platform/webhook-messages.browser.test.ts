import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { WebhookMessage } from '../../lib/webhooks/inspection.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { axeViolations, CHROMIUM, CHROMIUM_ARGS, openPage, VIEWPORTS } from '../helpers/chromium.js';
import { StillClock } from '../oauth2/helpers/clock.js';
import { LOCAL_RECEIVERS, register, setUp } from '../webhooks/helpers.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';

// A webhook message's page in a real browser, at desktop size and 390 px: reached from its delivery row, axe finds
// nothing, the long body and answer never make the page scroll sideways, and the redelivery form works with the
// keyboard alone. SCREENSHOTS=<folder> saves each state as a PNG, to look at.

const documentWidth = (page: Page): Promise<number> =>
  page.evaluate(
    () =>
      (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement
        .scrollWidth,
  );

const focusedText = (page: Page): Promise<string> =>
  page.evaluate(
    () =>
      (globalThis as unknown as { document: { activeElement: { textContent: string } } }).document.activeElement
        .textContent,
  );

describe('webmasters platform: a webhook message in a browser (Debian chromium, headless)', function () {
  this.timeout(180_000);
  const screenshots = process.env['SCREENSHOTS'];
  let app: TestApp | undefined;
  let browser: Browser | undefined;
  let receiver: Receiver | undefined;
  let setup: Awaited<ReturnType<typeof setUp>>;
  let messagePath: string;

  before(async function () {
    if (!existsSync(CHROMIUM)) this.skip();
    if (screenshots) await mkdir(screenshots, { recursive: true });
    app = await startTestApp({ clock: new StillClock(), env: { ...LOCAL_RECEIVERS } });
    setup = await setUp(app);
    receiver = await startReceiver();
    // A refusal with a long line of text: what must wrap inside its own region at 390 px.
    receiver.answer = (index) => (index === 0 ? 503 : 200);
    receiver.replyBody = `{"error":"database unavailable","detail":"${'the primary is being restarted; '.repeat(20)}"}`;
    const hook = await register(setup.api, setup.client.websiteId, receiver.url);
    expect((await setup.api.post(`/website/${setup.client.websiteId}/webhooks/${hook.id}/test`, {})).status).to.equal(
      200,
    );
    const [first] = await receiver.waitFor(1);
    const messageId = String(first!.headers['webhook-id']);
    messagePath = `/website/${setup.client.websiteId}/webhooks/${hook.id}/messages/${messageId}`;
    while ((await setup.api.get<WebhookMessage>(messagePath)).body.attempts.length === 0)
      await new Promise((resolve) => setTimeout(resolve, 20));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await receiver?.close();
    await app?.close();
  });

  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    it(`shows the message from its delivery row and redelivers it with the keyboard at ${size} size (${viewport.width} px), axe-clean`, async () => {
      const { context, page, problems } = await openPage(browser!, viewport);
      const check = async (state: string): Promise<void> => {
        expect(await axeViolations(page), `${state} at ${size}`).to.deep.equal([]);
        expect(await documentWidth(page), `${state} at ${size}: no sideways scrolling`).to.be.at.most(viewport.width);
        if (screenshots)
          await page.screenshot({ path: join(screenshots, `webhook-message-${size}-${state}.png`), fullPage: true });
      };
      await page.goto(`${app!.url}/platform/signin`);
      await page.getByLabel('Email').fill(setup.webmaster.email);
      await page.getByLabel('Password').fill(setup.webmaster.password);
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.pathname === '/platform/websites');
      await page.goto(`${app!.url}/platform/websites/${setup.client.websiteId}/webhooks`);
      await page
        .getByRole('link', { name: /^webhook\.test, \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/ })
        .first()
        .click();
      await page.getByRole('heading', { name: 'Webhook message', level: 2 }).waitFor();
      await check('message');

      // From the top of the freshly loaded page, with Tab alone, to the button; Enter sends the form.
      let tabs = 0;
      while ((await focusedText(page)).trim() !== 'Redeliver now') {
        await page.keyboard.press('Tab');
        expect((tabs += 1), 'the redeliver button is reached with Tab').to.be.below(40);
      }
      await page.keyboard.press('Enter');
      await page.getByText('Queued: sent again now with the same webhook-id.').waitFor();
      expect(new URL(page.url()).search).to.equal('?saved=redelivered');
      await check('redelivered');

      // The body sent, folded as the exact bytes: opened from the keyboard, it wraps in its region.
      await page.locator('summary', { hasText: 'The exact bytes sent, as signed' }).focus();
      await page.keyboard.press('Enter');
      await page.locator('#body-exact').waitFor({ state: 'visible' });
      await check('exact-bytes');
      expect(problems).to.deep.equal([]);
      await context.close();
    });
  }
});
