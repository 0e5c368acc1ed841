import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import type { Demo } from '../../examples/demo/demo.js';
import { passSandbox, startTestDemo, watchProblems, type TestDemo } from '../helpers/demo.js';

// The demo shop's second page: the checker script only, and a backend that verifies the token before unlocking.

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--no-first-run',
];

describe('the demo shop page with the checker script only', function () {
  this.timeout(180_000);
  let started: TestDemo | undefined;
  let demo: Demo | undefined;
  let browser: Browser | undefined;

  before(async function () {
    if (!existsSync(CHROMIUM)) this.skip();
    started = await startTestDemo('age-provider-script-demo-');
    demo = started.demo;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await started?.close();
  });

  it('unlocks its content only after the backend verified the token from the popup', async () => {
    const context = await browser!.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${demo!.relyingPartyUrl}/script`);
    const button = page.getByRole('dialog').getByRole('button', { name: 'Verify my age with Age Provider' });
    const [popup] = await Promise.all([page.waitForEvent('popup'), button.click()]);
    await passSandbox(popup, demo!.seed.website.name);
    await page.getByRole('heading', { name: 'Your age is verified' }).waitFor();
    expect(await page.locator('#unlocked-content').innerText()).to.match(/\(test_/);
    expect(problems).to.deep.equal([]);
    await context.close();
  });

  it('refuses a token that does not verify, and a request without one', async () => {
    const unlock = (body: string) =>
      fetch(`${demo!.relyingPartyUrl}/script/unlock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
    const forged = `${Buffer.from('{"alg":"none","typ":"age-verification+jwt"}').toString('base64url')}.${Buffer.from('{"verified":true}').toString('base64url')}.`;
    const refused = await unlock(JSON.stringify({ token: forged }));
    expect(refused.status).to.equal(401);
    expect(await refused.json()).to.deep.equal({ error: 'the token does not verify' });
    expect((await unlock('not json')).status).to.equal(400);
  });
});
