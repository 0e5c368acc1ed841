import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { axeViolations, CHROMIUM, CHROMIUM_ARGS, VIEWPORTS } from '../helpers/chromium.js';
import { signedInWebmaster } from '../helpers/platform.js';

/**
 * A webmaster's passkey through our page script in a real browser: Chromium's virtual authenticator (DevTools
 * protocol) makes and signs the credential, so neither the ceremony nor the verifier is ours end to end.
 */
describe('platform second factor: passkeys in a browser (Chromium virtual authenticator)', function () {
  this.timeout(180_000);
  let app: TestApp;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`    skipped: ${CHROMIUM} is not installed (Debian: apt-get install -y chromium)`);
      this.skip();
    }
    // WebAuthn refuses an IP address as relying-party id: the issuer is http://localhost:<port>, a secure context.
    app = await startTestApp({}, { hostname: 'localhost' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  /** A browser with a platform authenticator (user verification on) and the script errors and CSP reports it logs. */
  async function device(viewport: { width: number; height: number } = VIEWPORTS.desktop) {
    const context = await browser!.newContext({ viewport, locale: 'en-GB' });
    contexts.push(context);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 40[0-9]/.test(message.text())) problems.push(message.text());
    });
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
    return { page, cdp, authenticatorId, problems };
  }

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await page.goto(`${app.url}/platform/signin`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  const credentialsOf = async (cdp: CDPSession, authenticatorId: string) =>
    (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;

  it('adds a passkey on the security page, then signs in with it; axe-clean at 390 px', async () => {
    const owner = await signedInWebmaster(app);
    const phone = await device(VIEWPORTS.mobile);
    await signIn(phone.page, owner.email, owner.password);
    await phone.page.waitForURL('**/platform/websites');
    await phone.page.goto(`${app.url}/platform/account/second-factor`);
    expect(await axeViolations(phone.page)).to.deep.equal([]);

    await phone.page.getByRole('button', { name: 'Add a passkey' }).click();
    await phone.page.waitForURL('**/platform/account/second-factor/codes');
    expect(await phone.page.locator('.recovery-codes li').count()).to.equal(10);
    expect(await credentialsOf(phone.cdp, phone.authenticatorId)).to.have.length(1);
    await phone.page.goto(`${app.url}/platform/account/second-factor`);
    await phone.page.getByText('A passkey is asked at every sign-in.').waitFor();
    expect(await phone.page.getByRole('button', { name: /^Remove the passkey / }).count()).to.equal(1);
    expect(await axeViolations(phone.page)).to.deep.equal([]);

    // The next sign-in, on the same device: the password leads to the second factor, the passkey through it.
    const again = phone.page.context();
    await again.clearCookies();
    await signIn(phone.page, owner.email, owner.password);
    await phone.page.waitForURL('**/platform/signin/second-factor');
    expect(await axeViolations(phone.page)).to.deep.equal([]);
    await phone.page.getByRole('button', { name: 'Use a passkey' }).click();
    await phone.page.waitForURL('**/platform/websites');
    expect(phone.problems).to.deep.equal([]);
  });

  it('a device without the passkey is told so and stays at the second factor', async () => {
    const owner = await signedInWebmaster(app);
    const laptop = await device();
    await signIn(laptop.page, owner.email, owner.password);
    await laptop.page.waitForURL('**/platform/websites');
    await laptop.page.goto(`${app.url}/platform/account/second-factor`);
    await laptop.page.getByRole('button', { name: 'Add a passkey' }).click();
    await laptop.page.waitForURL('**/platform/account/second-factor/codes');

    const stranger = await device();
    await signIn(stranger.page, owner.email, owner.password);
    await stranger.page.waitForURL('**/platform/signin/second-factor');
    await stranger.page.getByRole('button', { name: 'Use a passkey' }).click();
    await stranger.page.getByText('No passkey was used. Try again, or enter a code.').waitFor();
    expect(new URL(stranger.page.url()).pathname).to.equal('/platform/signin/second-factor');
    await stranger.page.goto(`${app.url}/platform/websites`);
    expect(new URL(stranger.page.url()).pathname).to.equal('/platform/signin/second-factor');
  });
});
