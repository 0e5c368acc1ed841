import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createVisitorAccount } from '../../lib/visitors/visitor-accounts.js';
import type { TestApp } from '../helpers/app.js';
import { Browser, formOf, type Page } from '../helpers/browser.js';
import { createWebmasterFixture, startAppWithClient, type ClientFixture } from '../helpers/fixtures.js';
import { accept, expectPage } from '../helpers/visitor.js';
import { authorizationUrl } from '../helpers/relying-party.js';

const PASSWORD = 'correct horse battery';

/** A browser behind the trusted proxy at `ip`; the address can change later (a laptop moving to another network). */
function browserAt(app: TestApp, ip: string): { browser: Browser; moveTo(next: string): void } {
  const headers = { 'x-forwarded-for': ip };
  return {
    browser: new Browser(app.url, { headers }),
    moveTo: (next) => {
      headers['x-forwarded-for'] = next;
    },
  };
}

/** The identifier in fullwidth forms (ｏｗｎｅｒ＠…), which NFKC maps back to ASCII. */
const fullwidth = (text: string): string =>
  text.replace(/[!-~]/g, (character) => String.fromCharCode(character.charCodeAt(0) + 0xfee0));

type Outcome = 'signedIn' | 'refused' | 'throttled';

/** One sign-in surface as the tests drive it: an attempt from a browser is signed in, refused (wrong credentials) or throttled (429). */
interface Surface {
  /** a new account: its identifier as typed at sign-in, and its password */
  newAccount(): Promise<{ identifier: string; password: string }>;
  signIn(browser: Browser, identifier: string, password: string): Promise<Outcome>;
}

const outcomeOf = (page: Page, refusedStatus: number, signedIn: boolean): Outcome => {
  if (page.status === 429) return 'throttled';
  if (signedIn) return 'signedIn';
  expect(page.status, page.html.slice(0, 500)).to.equal(refusedStatus);
  return 'refused';
};

const platformSurface = (app: TestApp): Surface => ({
  async newAccount() {
    // An `i` in the address, for the U+0130 case.
    const { email, password } = await createWebmasterFixture(
      app.provider.runtime,
      `owner-i-${randomBytes(4).toString('hex')}@example.test`,
    );
    return { identifier: email, password };
  },
  async signIn(browser, email, password) {
    await browser.open('/platform/signin');
    const page = await browser.post('/platform/signin', { email, password });
    return outcomeOf(page, 400, page.status === 200 && page.url.pathname === '/platform/websites');
  },
});

const visitorSurface = (app: TestApp, client: ClientFixture): Surface => ({
  async newAccount() {
    const username = `owner.i.${randomBytes(4).toString('hex')}`;
    await createVisitorAccount(app.provider.runtime.db, { username, password: PASSWORD });
    return { identifier: username, password: PASSWORD };
  },
  async signIn(browser, username, password) {
    const page = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client, 'login'))));
    const answer = await browser.submit(formOf(page, { action: '/sign-in' }), { username, password });
    // Signed in, without a saved result: on to the challenge choice.
    return outcomeOf(answer, 401, answer.status === 200 && answer.url.pathname.endsWith('/choose'));
  },
});

/** The lock-out scenarios (docs/decisions/security.md "Sign-in, CSRF and enumeration"), for one surface. */
function lockOutScenarios(setUp: () => { app: TestApp; surface: Surface }): void {
  it('50 wrong passwords from 50 addresses leave the owner in: from a new address, and from a known browser at once', async () => {
    const { app, surface } = setUp();
    const { identifier, password } = await surface.newAccount();
    const known = browserAt(app, '192.0.2.1');
    expect(await surface.signIn(known.browser, identifier, password)).to.equal('signedIn');

    for (let n = 1; n <= 50; n++) {
      expect(
        await surface.signIn(browserAt(app, `203.0.113.${n}`).browser, identifier, `wrong guess ${n}`),
        `guess ${n}`,
      ).to.equal('refused');
    }
    expect(await surface.signIn(browserAt(app, '198.51.100.7').browser, identifier, password)).to.equal('signedIn');
    expect(await surface.signIn(known.browser, identifier, password)).to.equal('signedIn');
  });

  it('still throttles a single address, even with the right password; the known browser on that address gets in', async () => {
    const { app, surface } = setUp();
    const { identifier, password } = await surface.newAccount();
    const known = browserAt(app, '192.0.2.2');
    expect(await surface.signIn(known.browser, identifier, password)).to.equal('signedIn');

    const guesser = browserAt(app, '203.0.113.200').browser;
    for (let n = 1; n <= 10; n++)
      expect(await surface.signIn(guesser, identifier, `wrong guess ${n}`), `guess ${n}`).to.equal('refused');
    expect(await surface.signIn(guesser, identifier, password)).to.equal('throttled');
    expect(await surface.signIn(browserAt(app, '203.0.113.200').browser, identifier, password)).to.equal('throttled');

    known.moveTo('203.0.113.200');
    expect(await surface.signIn(known.browser, identifier, password)).to.equal('signedIn');
  });

  it('counts an IPv6 network by its /64', async () => {
    const { app, surface } = setUp();
    const { identifier, password } = await surface.newAccount();
    for (let n = 1; n <= 10; n++) {
      expect(
        await surface.signIn(browserAt(app, `2001:db8:7:1::${n.toString(16)}`).browser, identifier, `wrong guess ${n}`),
      ).to.equal('refused');
    }
    expect(await surface.signIn(browserAt(app, '2001:db8:7:1:ffff::1').browser, identifier, password)).to.equal(
      'throttled',
    );
    expect(await surface.signIn(browserAt(app, '2001:db8:7:2::1').browser, identifier, password)).to.equal('signedIn');
  });

  it('gives no fresh throttle to another spelling of the identifier, and U+0130 for i opens no account', async () => {
    const { app, surface } = setUp();
    const { identifier, password } = await surface.newAccount();
    const browser = browserAt(app, '203.0.113.210').browser;
    for (let n = 1; n <= 10; n++)
      expect(await surface.signIn(browser, identifier, `wrong guess ${n}`)).to.equal('refused');
    expect(await surface.signIn(browser, ` ${identifier.toUpperCase()} `, password)).to.equal('throttled');
    expect(await surface.signIn(browser, fullwidth(identifier), password)).to.equal('throttled');
    const dotted = identifier.replace('i', '\u0130');
    expect(dotted).not.to.equal(identifier);
    expect(await surface.signIn(browser, dotted, password)).not.to.equal('signedIn');
  });
}

describe('security: no lock-out of the rightful owner', function () {
  // Each wrong guess costs a real scrypt verification: 50 of them take a while on a busy machine.
  this.timeout(300_000);
  let app: TestApp;
  let client: ClientFixture;
  before(async () => {
    ({ app, client } = await startAppWithClient(
      { environment: 'TEST', challenges: ['selfie'] },
      { env: { TRUST_PROXY: 'true' } },
    ));
  });
  after(() => app.close());

  describe('platform webmaster sign-in', () => lockOutScenarios(() => ({ app, surface: platformSurface(app) })));
  describe('visitor account sign-in', () => lockOutScenarios(() => ({ app, surface: visitorSurface(app, client) })));
});
