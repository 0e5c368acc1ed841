import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createWebmaster } from '../../lib/webmasters/accounts.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

describe('webmasters platform in a real browser (Debian chromium)', function () {
  this.timeout(60_000);
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  const cspViolations: string[] = [];

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`      skipped: ${CHROMIUM} is missing (install Debian's chromium: apt-get install -y chromium)`);
      this.skip();
    }
    app = await startTestApp();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    page = await browser.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('signs in with the keyboard, makes an API key shown once, and the token works against the External API', async () => {
    await createWebmaster(app.provider.db, { email: 'browser@example.test', password: 'a browser passphrase' });
    await page.goto(`${app.url}/platform/signin`);
    await page.getByLabel('Email').fill('browser@example.test');
    await page.getByLabel('Password', { exact: true }).fill('a browser passphrase');
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.pathname === '/platform/websites');
    await page.getByRole('link', { name: 'API keys' }).first().click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();

    await page.getByLabel('Name', { exact: true }).fill('deployment script');
    await page.getByRole('button', { name: 'Make the key' }).focus();
    await page.keyboard.press('Enter');
    const tokenField = page.getByLabel('Your new API key');
    await tokenField.waitFor();
    const token = await tokenField.inputValue();
    expect(token).to.match(/^avk_[A-Za-z0-9_-]{43}$/);
    expect(await page.getByText('it is shown only this once').isVisible()).to.equal(true);

    const listed = await fetch(`${app.url}/external/website`, { headers: { authorization: `Bearer ${token}` } });
    expect(listed.status).to.equal(200);
    expect(await listed.json()).to.deep.equal([]);
    const created = await fetch(`${app.url}/external/website`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Made by a program', domain: 'program.example.com' }),
    });
    expect(created.status).to.equal(200);

    await page.reload();
    expect(await page.getByLabel('Your new API key').count()).to.equal(0);
    expect(await page.getByText(/Last used on/).isVisible()).to.equal(true);

    await page.getByRole('link', { name: 'Websites' }).click();
    await page.getByRole('heading', { name: 'Made by a program' }).waitFor();
  });

  it('shows a form error next to its field and keeps the page free of CSP violations', async () => {
    await page.goto(`${app.url}/platform/websites`);
    await page.getByLabel('Name').fill('Second site');
    await page.getByLabel('Domain').fill('https://Second.example.com');
    await page.getByRole('button', { name: 'Add website' }).click();
    const domain = page.getByLabel('Domain');
    await page.locator('#create-domain-error').waitFor();
    expect(await domain.getAttribute('aria-invalid')).to.equal('true');
    expect(await page.locator('#create-domain-error').textContent()).to.contain('Enter a lower-case host name');
    await domain.fill('second.example.com');
    await page.getByRole('button', { name: 'Add website' }).click();
    // The form posts to #form-errors (so a refused form scrolls to its summary); the redirect keeps that fragment.
    await page.waitForURL(/\/platform\/websites\/\d+\/integrate\?saved=created(#form-errors)?$/);
    await page.getByRole('heading', { name: 'Second site', level: 1 }).waitFor();
    expect(cspViolations).to.deep.equal([]);
  });

  it('copies the ready-to-paste token command with its copy button (our own script, under the CSP)', async () => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByLabel('Redirect URIs').last().fill('https://second.example.com/callback');
    await page.getByRole('button', { name: 'Enable OAuth2 (TEST)' }).click();
    const command = page.locator('#integrate-test-token');
    await command.waitFor();
    const copy = page.locator('button[data-copy="integrate-test-token"]');
    expect(await copy.isVisible(), 'the script shows the copy buttons').to.equal(true);
    await copy.click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    const copied = await page.evaluate(() =>
      (
        globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
      ).navigator.clipboard.readText(),
    );
    expect(copied)
      .to.equal(await command.textContent())
      .and.contain('/v1/oauth2/token');
    // The new client secret, shown once, copies the same way.
    await page.locator('button[data-copy="new-secret"]').click();
    const secret = await page.evaluate(() =>
      (
        globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
      ).navigator.clipboard.readText(),
    );
    expect(secret)
      .to.equal(await page.locator('#new-secret').textContent())
      .and.match(/^[A-Za-z0-9_-]{20,}$/);
    expect(cspViolations).to.deep.equal([]);
  });
});
