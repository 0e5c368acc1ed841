import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { useApp } from '../../helpers/app.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../../helpers/fixtures.js';
import { Browser, formOf, linkWithText, type Page } from '../../helpers/browser.js';
import { accept, callbackOf, continueWithoutSaving, expectPage, submitSandbox } from '../../helpers/visitor.js';
import { authorizationUrl, redeem } from '../../helpers/relying-party.js';

const newUsername = (): string => `visitor.${randomBytes(4).toString('hex')}`;
const PASSWORD = 'correct horse battery';

describe('visitor accounts and reuse', () => {
  const app = useApp();
  let client: ClientFixture;
  let liveClient: ClientFixture;

  before(async () => {
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    client = await createClientFixture(app.provider.runtime, webmaster.id, {
      environment: 'TEST',
      challenges: ['selfie', 'ticket'],
    });
    liveClient = await createClientFixture(app.provider.runtime, webmaster.id, {
      environment: 'LIVE',
      challenges: ['ticket'],
    });
  });

  const methodOf = async (uid: unknown): Promise<string> =>
    (await app.provider.db('verifications').where('uid', String(uid)).first()).method;

  /** Checker flow in `browser` up to the result page after passing the selfie sandbox with `level`. */
  async function passSelfie(browser: Browser, level = 'ENHANCED'): Promise<Page> {
    const choice = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));
    const sandbox = await browser.open(linkWithText(choice, 'Selfie'));
    const result = expectPage(await submitSandbox(browser, sandbox, { level, country: 'US', subdivision: 'US-NY' }));
    expect(result.url).to.match(/\/result$/);
    return result;
  }

  const save = (browser: Browser, result: Page, values: Record<string, string>): Promise<Page> =>
    browser.submit(formOf(result, { action: '/result/save' }), values);

  async function saveAccount(username: string): Promise<void> {
    const browser = new Browser(app.url);
    const result = await passSelfie(browser);
    const resources = await redeem(
      app,
      client,
      callbackOf(
        await save(browser, result, { username, password: PASSWORD, password_confirmation: PASSWORD }),
        client,
      ).get('code')!,
    );
    expect(resources).to.include({ reused: false, assurance_level: 'ENHANCED' });
  }

  async function signInPage(browser: Browser, target: ClientFixture = client): Promise<Page> {
    return expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, target, 'login'))));
  }
  const signIn = (browser: Browser, page: Page, username: string, password: string): Promise<Page> =>
    browser.submit(formOf(page, { action: '/sign-in' }), { username, password });

  it('saves a result to an account; signing in on the login entry then skips the challenge with reused: true', async () => {
    const username = newUsername();
    await saveAccount(username);
    const stored = await app.provider.db('visitor_accounts').whereRaw('lower(username) = ?', [username]).first();
    expect(stored.password_hash)
      .to.match(/^scrypt\$/)
      .and.not.contain(PASSWORD);

    const browser = new Browser(app.url); // another browser: only the account can help
    const landing = await signIn(browser, await signInPage(browser), username.toUpperCase(), PASSWORD);
    const resources = await redeem(app, client, callbackOf(landing, client).get('code')!);
    expect(resources).to.include({ verified: true, reused: true, assurance_level: 'ENHANCED', country: 'ZZ' });
    expect(await methodOf(resources['uid'])).to.equal('selfie');
  });

  it('signs in from the checker entry too ("sign in" on the choice page)', async () => {
    const username = newUsername();
    await saveAccount(username);
    const browser = new Browser(app.url);
    const choice = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));
    const page = await browser.open(linkWithText(choice, 'Sign in'));
    const resources = await redeem(
      app,
      client,
      callbackOf(await signIn(browser, page, username, PASSWORD), client).get('code')!,
    );
    expect(resources).to.include({ reused: true });
  });

  it('answers a wrong password and an unknown username the same way', async () => {
    const username = newUsername();
    await saveAccount(username);
    const browser = new Browser(app.url);
    const page = await signInPage(browser);
    const wrongPassword = expectPage(await signIn(browser, page, username, 'not the password'));
    const unknownUser = expectPage(await signIn(browser, page, newUsername(), 'not the password'));
    expect(wrongPassword.status).to.equal(401);
    expect(unknownUser.status).to.equal(401);
    const message = (html: string) => /id="form-error"[^>]*>[\s\S]*?<p>([^<]*)<\/p>/.exec(html)?.[1];
    expect(message(wrongPassword.html)).to.equal('The username or the password is wrong.');
    expect(message(unknownUser.html)).to.equal(message(wrongPassword.html));
  });

  it('limits sign-in attempts per account, even with the right password afterwards', async () => {
    const username = newUsername();
    await saveAccount(username);
    const browser = new Browser(app.url);
    const page = await signInPage(browser);
    for (let attempt = 1; attempt <= 10; attempt++)
      expect(expectPage(await signIn(browser, page, username, `wrong-${attempt}`)).status).to.equal(401);
    const limited = expectPage(await signIn(browser, page, username, PASSWORD));
    expect(limited.status).to.equal(429);
    expect(limited.html).to.contain('Too many attempts');
  });

  it('checks the new account: username rules, password length and confirmation, a taken username', async () => {
    const taken = newUsername();
    await saveAccount(taken);
    const browser = new Browser(app.url);
    const result = await passSelfie(browser);
    const cases: Array<[Record<string, string>, number, string]> = [
      [
        { username: 'me@example.com', password: PASSWORD, password_confirmation: PASSWORD },
        422,
        'Choose a username of 3 to 32 characters',
      ],
      [{ username: newUsername(), password: 'short', password_confirmation: 'short' }, 422, 'at least 10 characters'],
      [{ username: newUsername(), password: PASSWORD, password_confirmation: `${PASSWORD}!` }, 422, 'not the same'],
      [{ username: taken.toUpperCase(), password: PASSWORD, password_confirmation: PASSWORD }, 409, 'already taken'],
    ];
    for (const [values, status, message] of cases) {
      const page = expectPage(await save(browser, result, values));
      expect(page.status, JSON.stringify(values)).to.equal(status);
      expect(page.html).to.contain(message);
    }
    // Still on the result page: continuing works.
    expect(callbackOf(await continueWithoutSaving(browser, result), client).get('code')).to.be.a('string');
  });

  it('offers this browser its earlier result within the session, and not another browser', async () => {
    const browser = new Browser(app.url);
    const first = await passSelfie(browser, 'STRICT');
    callbackOf(await continueWithoutSaving(browser, first), client);

    const choice = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));
    expect(choice.html).to.contain('You already proved your age');
    const resources = await redeem(
      app,
      client,
      callbackOf(await browser.submit(formOf(choice, { action: '/reuse' })), client).get('code')!,
    );
    expect(resources).to.include({ reused: true, assurance_level: 'STRICT' });

    // The login entry offers it too.
    expect((await signInPage(browser)).html).to.contain('Use my earlier result');

    const stranger = new Browser(app.url);
    const other = expectPage(await accept(stranger, await stranger.open(authorizationUrl(app.url, client))));
    expect(other.html).to.not.contain('You already proved your age');
  });

  it('never reuses a sandbox result for a LIVE website', async () => {
    const username = newUsername();
    await saveAccount(username);
    const browser = new Browser(app.url);
    const page = await signInPage(browser, liveClient);
    const after = expectPage(await signIn(browser, page, username, PASSWORD));
    expect(after.url).to.match(/\/choose\?notice=no_saved_result$/);
    expect(after.html).to.contain('your account holds no result that can be reused');
  });

  it('a signed-in visitor without a usable result verifies once; the result is saved to the account', async () => {
    const username = newUsername();
    await saveAccount(username);
    await app.provider
      .db('age_proofs')
      .where('subject', 'like', 'acct:%')
      .update({ reusable_until: new Date(Date.now() - 1000) });

    const browser = new Browser(app.url);
    const choice = expectPage(await signIn(browser, await signInPage(browser), username, PASSWORD));
    expect(choice.url).to.match(/\/choose\?notice=no_saved_result$/);
    expect(choice.html).to.contain('You are signed in');
    const sandbox = await browser.open(linkWithText(choice, 'Selfie'));
    // Signed in: no offer to save, straight back to the website.
    const landing = await submitSandbox(browser, sandbox, { level: 'STANDARD' });
    expect(await redeem(app, client, callbackOf(landing, client).get('code')!)).to.include({
      reused: false,
      assurance_level: 'STANDARD',
    });

    const later = new Browser(app.url);
    const resources = await redeem(
      app,
      client,
      callbackOf(await signIn(later, await signInPage(later), username, PASSWORD), client).get('code')!,
    );
    expect(resources).to.include({ reused: true, assurance_level: 'STANDARD' });
  });
});
