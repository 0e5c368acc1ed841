import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { startDemo, type Demo } from '../../examples/demo/demo.js';
import { testSecrets } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

// The demo shop's second page: the checker script only, and a backend that verifies the token before unlocking.

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'];

describe('the demo shop page with the checker script only', function () {
  this.timeout(180_000);
  let database: TestDatabase | undefined;
  let dataDir: string | undefined;
  let demo: Demo | undefined;
  let browser: Browser | undefined;

  before(async function () {
    if (!existsSync(CHROMIUM)) this.skip();
    database = await createTestDatabase();
    dataDir = await mkdtemp(join(tmpdir(), 'age-provider-script-demo-'));
    demo = await startDemo({ logLevel: 'silent', dataDir, port: 0, ...testSecrets, db: database.db, ...(database.url ? { databaseUrl: database.url } : {}) });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
    await database?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('unlocks its content only after the backend verified the token from the popup', async () => {
    const context = await browser!.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => { if (message.type() === 'error' && !/status of 404/.test(message.text())) problems.push(message.text()); });
    // A missing favicon is no problem; any other failed request is.
    page.on('response', (response) => { if (response.status() >= 400 && !response.url().endsWith('/favicon.ico')) problems.push(`${response.status()} ${response.url()}`); });
    await page.goto(`${demo!.relyingPartyUrl}/script`);
    const button = page.getByRole('dialog').getByRole('button', { name: 'Verify my age with Age Provider' });
    const [popup] = await Promise.all([page.waitForEvent('popup'), button.click()]);
    await popup.getByRole('button', { name: 'Accept and continue' }).click();
    const choice = popup.getByRole('heading', { name: 'Choose how to prove your age' });
    const sandbox = popup.getByRole('radio', { name: /^Pass/ });
    await choice.or(sandbox).first().waitFor();
    if (await choice.isVisible()) await popup.locator('ul.choices a.button').first().click();
    await sandbox.check();
    await popup.getByRole('button', { name: 'Send this result' }).click();
    await popup.getByRole('button', { name: `Continue to ${demo!.seed.website.name}` }).click();
    await page.getByRole('heading', { name: 'Your age is verified' }).waitFor();
    expect(await page.locator('#unlocked-content').innerText()).to.match(/\(test_/);
    expect(problems).to.deep.equal([]);
    await context.close();
  });

  it('refuses a token that does not verify, and a request without one', async () => {
    const unlock = (body: string) => fetch(`${demo!.relyingPartyUrl}/script/unlock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const forged = `${Buffer.from('{"alg":"none","typ":"age-verification+jwt"}').toString('base64url')}.${Buffer.from('{"verified":true}').toString('base64url')}.`;
    const refused = await unlock(JSON.stringify({ token: forged }));
    expect(refused.status).to.equal(401);
    expect(await refused.json()).to.deep.equal({ error: 'the token does not verify' });
    expect((await unlock('not json')).status).to.equal(400);
  });
});
