import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../../../helpers/app.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../../../helpers/fixtures.js';
import { authorizationUrl, redeem } from '../../../helpers/relying-party.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** A credential as the DevTools protocol's virtual authenticator exports and imports it. */
interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  privateKey: string;
  userHandle?: string;
  signCount: number;
}

/** One person's browser: its own cookies, and a platform authenticator (user verification on) driven through CDP. */
interface Device {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  authenticatorId: string;
  problems: string[];
}

describe('passkeys in a browser (Chromium virtual authenticator)', function () {
  this.timeout(120_000);
  let app: TestApp;
  let client: ClientFixture;
  let browser: Browser | undefined;
  let website: Server | undefined;
  const devices: Device[] = [];

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`    skipped: ${CHROMIUM} is not installed (Debian: apt-get install -y chromium)`);
      this.skip();
    }
    // WebAuthn refuses an IP address as relying-party id: the issuer is http://localhost:<port>, a secure context.
    app = await startTestApp({}, { hostname: 'localhost' });
    // The website: a page of its own for the callback, whose address the test reads the code from.
    const callbackServer = createServer((_request, response) =>
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>website</title><p>back at the website</p>'),
    );
    website = callbackServer;
    await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
    const redirectUri = `http://localhost:${(callbackServer.address() as AddressInfo).port}/callback`;
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    client = await createClientFixture(app.provider.runtime, webmaster.id, {
      environment: 'TEST',
      challenges: ['selfie', 'ticket'],
      redirectUris: [redirectUri],
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    website?.close();
  });

  async function newDevice(credentials: VirtualCredential[] = []): Promise<Device> {
    const context = await browser!.newContext({ locale: 'en-US' });
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
    for (const credential of credentials) await cdp.send('WebAuthn.addCredential', { authenticatorId, credential });
    const device = { context, page, cdp, authenticatorId, problems };
    devices.push(device);
    return device;
  }
  afterEach(async () => {
    for (const device of devices.splice(0)) await device.context.close();
  });

  const credentialsOf = async (device: Device): Promise<VirtualCredential[]> =>
    (await device.cdp.send('WebAuthn.getCredentials', { authenticatorId: device.authenticatorId }))
      .credentials as VirtualCredential[];

  /** Opens an authorization and accepts the prompt. */
  async function start(device: Device, entry: 'checker' | 'login'): Promise<void> {
    await device.page.goto(authorizationUrl(app.url, client, entry));
    await device.page.getByRole('button', { name: 'Accept and continue' }).click();
  }

  /** From the choice page: the selfie sandbox, passed at the ENHANCED level. */
  async function passSelfie(page: Page): Promise<void> {
    await page.getByRole('link', { name: 'Selfie' }).click();
    await page.getByRole('radio', { name: /^Pass/ }).check();
    await page.getByLabel('Assurance level').selectOption('ENHANCED');
    await page.getByRole('button', { name: 'Send this result' }).click();
  }

  /** Waits for the website's callback and redeems its code: what the website receives. */
  async function resourcesAfter(page: Page): Promise<Record<string, unknown>> {
    await page.waitForURL(`${client.redirectUri}?**`);
    const code = new URL(page.url()).searchParams.get('code');
    expect(code, page.url()).to.be.a('string');
    return redeem(app, client, code!);
  }

  /** A verification saved to a new passkey on `device`, then handed to the website. */
  async function saveToPasskey(device: Device): Promise<void> {
    const { page } = device;
    await start(device, 'checker');
    await passSelfie(page);
    await page.getByRole('heading', { name: 'Your age is verified' }).waitFor();
    await page.getByRole('button', { name: 'Save to a passkey' }).click();
    await page.getByText('Your result is saved to your passkey.').waitFor();
    // No password form once the passkey is the account; adding another passkey is offered instead.
    expect(await page.getByRole('heading', { name: 'Save this result to an account' }).count()).to.equal(0);
    await page.getByRole('button', { name: 'Add a passkey' }).waitFor();
    await page.getByRole('button', { name: /^Continue to / }).click();
    expect(await resourcesAfter(page)).to.include({ verified: true, reused: false, assurance_level: 'ENHANCED' });
  }

  it('saves a result to a passkey, then signs in with it on the login entry of another browser: reused: true', async () => {
    const first = await newDevice();
    await saveToPasskey(first);
    const [saved] = await credentialsOf(first);
    expect(saved).to.include({ isResidentCredential: true, rpId: 'localhost' });
    const rows = await app.provider.db('visitor_passkeys').select('account_id', 'counter', 'transports');
    expect(rows).to.have.length(1);
    const account = await app.provider.db('visitor_accounts').where('id', rows[0].account_id).first();
    expect(account).to.include({ username: null, password_hash: null });

    // Another browser (no cookie, no browser-session proof) holding the same passkey, as a synced passkey would.
    const second = await newDevice([saved!]);
    await start(second, 'login');
    await second.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    expect(await resourcesAfter(second.page)).to.include({ verified: true, reused: true, assurance_level: 'ENHANCED' });
    expect(first.problems.concat(second.problems)).to.deep.equal([]);
  });

  it('"use a saved result" on the choice page signs in with the passkey too', async () => {
    const first = await newDevice();
    await saveToPasskey(first);
    const second = await newDevice(await credentialsOf(first));
    await start(second, 'checker');
    await second.page.getByRole('heading', { name: 'Use a saved result' }).waitFor();
    await second.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    expect(await resourcesAfter(second.page)).to.include({ reused: true });
  });

  it('refuses a cloned credential whose signature counter is behind the one last seen', async () => {
    const original = await newDevice();
    await saveToPasskey(original);
    const [snapshot] = await credentialsOf(original);

    // The original signs in once: the counter moves on.
    await start(original, 'login');
    await original.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    expect(await resourcesAfter(original.page)).to.include({ reused: true });

    // A clone made before that use replays an older counter.
    const clone = await newDevice([snapshot!]);
    await start(clone, 'login');
    await clone.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await clone.page.getByRole('alert').getByText('This passkey could not be accepted.').waitFor();
    expect(clone.page.url()).to.match(/\/sign-in$/);
    await clone.page.getByRole('alert').getByRole('link', { name: 'Verify my age instead' }).waitFor();
  });

  it('with no passkey on the device, the page says so and offers the methods', async () => {
    const device = await newDevice();
    await start(device, 'login');
    await device.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await device.page
      .getByRole('alert')
      .getByText(/No passkey was used/)
      .waitFor();
    await device.page.getByRole('alert').getByRole('link', { name: 'Verify my age instead' }).click();
    await device.page.getByRole('link', { name: 'Selfie' }).waitFor();
    expect(device.problems).to.deep.equal([]);
  });

  it('a visitor signed in with a password adds a passkey, and later signs in with it', async () => {
    const device = await newDevice();
    const username = `pk.${Date.now().toString(36)}`;
    // A password account first (saved from a result page).
    await start(device, 'checker');
    await passSelfie(device.page);
    await device.page.getByLabel('Username').fill(username);
    await device.page.getByLabel('Choose a password').fill('correct horse battery');
    await device.page.getByLabel('Repeat the password').fill('correct horse battery');
    await device.page.getByRole('button', { name: 'Save and continue' }).click();
    await resourcesAfter(device.page);
    await app.provider.db('age_proofs').where('subject', 'like', 'acct:%').delete(); // nothing left to reuse: the visitor lands on the choice page

    const other = await newDevice();
    await start(other, 'login');
    await other.page.getByLabel('Username').fill(username);
    await other.page.getByLabel('Password', { exact: true }).fill('correct horse battery');
    await other.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await other.page.getByRole('button', { name: 'Add a passkey' }).click();
    await other.page.getByText('The passkey is added to your account.').waitFor();
    // Signed in: the new result goes to the account and straight to the website.
    await passSelfie(other.page);
    expect(await resourcesAfter(other.page)).to.include({ reused: false });

    const third = await newDevice(await credentialsOf(other));
    await start(third, 'login');
    await third.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    expect(await resourcesAfter(third.page)).to.include({ reused: true });
  });
});
