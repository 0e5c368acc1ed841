import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createVisitorAccount } from '../../../lib/visitors/visitor-accounts.js';
import type { TestApp } from '../../helpers/app.js';
import { Browser, formOf, type Page } from '../../helpers/browser.js';
import { startAppWithClient, type ClientFixture } from '../../helpers/fixtures.js';
import { accept, callbackOf, expectPage, submitSandbox } from '../../helpers/visitor.js';
import { authorizationUrl } from '../../helpers/relying-party.js';

const newUsername = (): string => `visitor.${randomBytes(4).toString('hex')}`;
const PASSWORD = 'correct horse battery';

// Behind a trusted proxy each visitor has their own address, so one address running out leaves the others alone.
describe('interaction limits per IP address', function () {
  this.timeout(300_000); // 50 real scrypt verifications on a busy machine
  let app: TestApp;
  let client: ClientFixture;

  before(async () => {
    ({ app, client } = await startAppWithClient(
      { environment: 'TEST', challenges: ['selfie'] },
      { env: { TRUST_PROXY: 'true' } },
    ));
  });
  after(() => app.close());

  const browserFrom = (ip: string): Browser => new Browser(app.url, { headers: { 'x-forwarded-for': ip } });

  async function signInPage(browser: Browser): Promise<Page> {
    return expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client, 'login'))));
  }
  const signIn = (browser: Browser, page: Page, username: string, password: string): Promise<Page> =>
    browser.submit(formOf(page, { action: '/sign-in' }), { username, password });

  it('limits sign-in attempts per address across usernames (50 per 15 minutes)', async () => {
    const browser = browserFrom('203.0.113.10');
    const page = await signInPage(browser);
    for (let attempt = 1; attempt <= 50; attempt++) {
      expect(
        expectPage(await signIn(browser, page, newUsername(), 'not the password')).status,
        `attempt ${attempt}`,
      ).to.equal(401);
    }
    const limited = expectPage(await signIn(browser, page, newUsername(), 'not the password'));
    expect(limited.status).to.equal(429);
    expect(limited.html).to.contain('Too many attempts');

    const elsewhere = browserFrom('203.0.113.11');
    expect(
      expectPage(await signIn(elsewhere, await signInPage(elsewhere), newUsername(), 'not the password')).status,
    ).to.equal(401);
  });

  /** The result page after passing the selfie sandbox (the only challenge, so accepting leads straight to it). */
  async function passSelfie(browser: Browser): Promise<Page> {
    const sandbox = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));
    const result = expectPage(await submitSandbox(browser, sandbox, { level: 'STANDARD' }));
    expect(result.url).to.match(/\/result$/);
    return result;
  }
  const save = (browser: Browser, result: Page, username: string): Promise<Page> =>
    browser.submit(formOf(result, { action: '/result/save' }), {
      username,
      password: PASSWORD,
      password_confirmation: PASSWORD,
    });

  it('limits account creation per address (10 per hour)', async () => {
    const taken = newUsername();
    await createVisitorAccount(app.provider.runtime.db, { username: taken, password: PASSWORD });
    // Each try counts, even one refused for a taken username; two verifications, as each answers "taken" only 5 times.
    let browser = browserFrom('203.0.113.20');
    let result = await passSelfie(browser);
    for (let attempt = 1; attempt <= 10; attempt++) {
      if (attempt === 6) {
        browser = browserFrom('203.0.113.20');
        result = await passSelfie(browser);
      }
      expect(expectPage(await save(browser, result, taken)).status, `attempt ${attempt}`).to.equal(409);
    }
    const limited = expectPage(await save(browser, result, newUsername()));
    expect(limited.status).to.equal(429);
    expect(limited.html).to.contain('Too many attempts');

    const elsewhere = browserFrom('203.0.113.21');
    const saved = await save(elsewhere, await passSelfie(elsewhere), newUsername());
    expect(callbackOf(saved, client).get('code')).to.be.a('string');
  });
});
