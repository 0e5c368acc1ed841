import { expect } from 'chai';
import type { TestApp } from '../../../helpers/app.js';
import { startAppWithClient, type ClientFixture } from '../../../helpers/fixtures.js';
import { Browser, linkWithText, type Page } from '../../../helpers/browser.js';
import { accept, callbackOf, expectPage, submitSandbox } from '../../../helpers/visitor.js';
import { authorizationUrl, redeem } from '../../../helpers/relying-party.js';
import { SoftAuthenticator } from './soft-authenticator.js';
import { keptLogger } from '../../../helpers/log.js';

/** A well-formed assertion (as our browser script posts it) for a credential the service has never seen. */
const strangerAssertion = (): string =>
  JSON.stringify({
    id: 'c3RyYW5nZXItY3JlZGVudGlhbC1pZA',
    rawId: 'c3RyYW5nZXItY3JlZGVudGlhbC1pZA',
    type: 'public-key',
    clientExtensionResults: {},
    authenticatorAttachment: 'platform',
    response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'AAAA', userHandle: 'dXNlcg' },
  });

const garbageRegistration = (): string =>
  JSON.stringify({
    id: 'bmV3LWNyZWRlbnRpYWwtaWQtMTIz',
    rawId: 'bmV3LWNyZWRlbnRpYWwtaWQtMTIz',
    type: 'public-key',
    clientExtensionResults: {},
    response: { clientDataJSON: 'e30', attestationObject: 'oA', transports: ['internal'] },
  });

describe('passkey endpoints: what a script or a stranger gets', function () {
  this.timeout(120_000);
  let app: TestApp;
  let client: ClientFixture;

  before(async () => {
    // Passkeys are offered only where they can work: at a named issuer (WebAuthn refuses an IP address as RP id).
    ({ app, client } = await startAppWithClient(
      { environment: 'TEST', challenges: ['selfie', 'ticket'] },
      {},
      { hostname: 'localhost' },
    ));
  });
  after(() => app.close());

  /** A browser whose requests carry our Origin, as fetch from our pages does. */
  const visitor = (): Browser => new Browser(app.url, { headers: { origin: app.url } });

  /** Accepted login entry: the sign-in page, where the passkey section lives. */
  async function signInPage(browser: Browser): Promise<Page> {
    return expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client, 'login'))));
  }

  const postJson = async (
    browser: Browser,
    address: string,
    fields: Record<string, string> = {},
    csrf?: string | null,
  ): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await browser.request(address, {
      method: 'POST',
      body: fields,
      ...(csrf === undefined ? {} : { csrf }),
    });
    const type = response.headers.get('content-type') ?? '';
    return {
      status: response.status,
      body: type.includes('json')
        ? ((await response.json()) as Record<string, unknown>)
        : { html: await response.text() },
    };
  };

  const pathsOf = (page: Page) => {
    const root = page.url.pathname.replace(/\/(sign-in|choose|result)$/, '');
    return {
      signInOptions: `${root}/passkey/sign-in/options`,
      signIn: `${root}/passkey/sign-in`,
      registerOptions: `${root}/passkey/register/options`,
      register: `${root}/passkey/register`,
    };
  };

  const rowCount = async (table: string): Promise<number> =>
    Number((await app.provider.db(table).count<Array<{ count: string }>>('* as count'))[0]!.count);

  it('the sign-in page carries the passkey section for our script; options ask for a verified user of our RP id, any passkey of ours', async () => {
    const browser = visitor();
    const page = await signInPage(browser);
    expect(page.html).to.contain('data-passkey="sign-in"').and.contain('/static/passkeys.js');
    const { status, body } = await postJson(browser, pathsOf(page).signInOptions);
    expect(status).to.equal(200);
    expect(body).to.include({ rpId: 'localhost', userVerification: 'required' });
    expect(body['challenge']).to.match(/^[A-Za-z0-9_-]{32,}$/);
    expect(body['allowCredentials'] ?? []).to.deep.equal([]);
  });

  it('refuses a post from another origin, or without one, and a post without the form token', async () => {
    const headers: Record<string, string> = { origin: app.url };
    const browser = new Browser(app.url, { headers });
    const { signInOptions } = pathsOf(await signInPage(browser));
    const before = await rowCount('passkey_ceremonies');
    headers['origin'] = 'https://evil.example';
    // refused by the interaction pages' Origin check before the passkey endpoint's own, stricter one
    expect((await postJson(browser, signInOptions)).status).to.equal(403);
    headers['origin'] = 'null'; // what a form post sends under our no-referrer policy
    expect((await postJson(browser, signInOptions)).status).to.equal(403);
    delete headers['origin'];
    expect((await postJson(browser, signInOptions)).status).to.equal(403);
    headers['origin'] = app.url;
    expect((await postJson(browser, signInOptions, {}, null)).status).to.equal(403);
    expect(await rowCount('passkey_ceremonies')).to.equal(before);
    expect((await postJson(browser, signInOptions)).status).to.equal(200);
  });

  it('answers a malformed assertion with 400 invalid, and an answer without a challenge asked for with 400 expired', async () => {
    const browser = visitor();
    const { signIn } = pathsOf(await signInPage(browser));
    for (const response of [
      'not json',
      '{}',
      JSON.stringify({ id: 'x' }),
      JSON.stringify({ ...JSON.parse(strangerAssertion()), extra: 1 }),
    ]) {
      const answer = await postJson(browser, signIn, { response });
      expect(answer.status, response.slice(0, 20)).to.equal(400);
      expect(answer.body).to.include({
        error: 'invalid',
        message: 'Your browser sent an answer we could not read. Please try again.',
      });
    }
    expect((await postJson(browser, signIn, { response: 'x'.repeat(40_000) })).status, 'over the form limit').to.equal(
      413,
    );
    expect(await postJson(browser, signIn, { response: strangerAssertion() })).to.deep.include({ status: 400 });
    expect((await postJson(browser, signIn, { response: strangerAssertion() })).body).to.include({ error: 'expired' });
  });

  it('an unknown passkey is 401 and uses the challenge up: the same challenge never answers twice', async () => {
    const browser = visitor();
    const paths = pathsOf(await signInPage(browser));
    await postJson(browser, paths.signInOptions);
    const first = await postJson(browser, paths.signIn, { response: strangerAssertion() });
    expect(first).to.deep.include({ status: 401 });
    expect(first.body).to.include({
      error: 'unknown',
      message: 'This passkey is not known here (it may have been removed).',
    });
    expect((await postJson(browser, paths.signIn, { response: strangerAssertion() })).body).to.include({
      error: 'expired',
    });
  });

  it('a challenge belongs to its interaction: another interaction of the same browser cannot answer it', async () => {
    const browser = visitor();
    const first = pathsOf(await signInPage(browser));
    await postJson(browser, first.signInOptions);
    const second = pathsOf(await signInPage(browser));
    expect((await postJson(browser, second.signIn, { response: strangerAssertion() })).body).to.include({
      error: 'expired',
    });
  });

  it('saving a passkey needs a verification or an account: before either, the script is sent back to the start', async () => {
    const browser = visitor();
    const page = await signInPage(browser);
    const before = await rowCount('passkey_ceremonies');
    const { status, body } = await postJson(browser, pathsOf(page).registerOptions);
    expect(status).to.equal(200);
    expect(String(body['location'])).to.match(/\/interaction\/[^/]+$/);
    expect(await rowCount('passkey_ceremonies')).to.equal(before);
  });

  it('after a verification: options for a discoverable, user-verified passkey; a forged attestation saves nothing', async () => {
    const browser = visitor();
    const choice = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));
    const result = expectPage(await submitSandbox(browser, await browser.open(linkWithText(choice, 'Selfie'))));
    expect(result.html).to.contain('data-passkey="register"');
    const paths = pathsOf(result);
    const { body } = await postJson(browser, paths.registerOptions);
    expect(body).to.deep.include({
      attestation: 'none',
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
    });
    expect(body['rp']).to.deep.equal({ name: 'Age Provider', id: 'localhost' });
    const accounts = await rowCount('visitor_accounts');
    const refused = await postJson(browser, paths.register, { response: garbageRegistration() });
    expect(refused).to.deep.include({ status: 400 });
    expect(refused.body).to.include({ error: 'refused' });
    expect(await rowCount('visitor_passkeys')).to.equal(0);
    expect(await rowCount('visitor_accounts')).to.equal(accounts);
  });

  describe('with a software authenticator', () => {
    type Options = { challenge: string; rp: { id: string }; user: { id: string }; rpId: string };

    /** A verification on a new browser, saved to `authenticator` (unless `answer` says otherwise): the registration's answer. */
    async function saveWith(
      authenticator: SoftAuthenticator,
      answer = (options: Options) => authenticator.create(options, { origin: app.url }),
    ) {
      const browser = visitor();
      const choice = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));
      const result = expectPage(await submitSandbox(browser, await browser.open(linkWithText(choice, 'Selfie'))));
      const paths = pathsOf(result);
      const options = (await postJson(browser, paths.registerOptions)).body as unknown as Options;
      return { browser, paths, answer: await postJson(browser, paths.register, { response: answer(options) }) };
    }

    /** A login entry on a new browser, answered by `answer`. */
    async function signInWith(answer: (options: Options) => string) {
      const browser = visitor();
      const paths = pathsOf(await signInPage(browser));
      const options = (await postJson(browser, paths.signInOptions)).body as unknown as Options;
      return { browser, answer: await postJson(browser, paths.signIn, { response: answer(options) }) };
    }

    const counterOf = async (authenticator: SoftAuthenticator): Promise<number> =>
      Number(
        (
          await app.provider
            .db('visitor_passkeys')
            .where('credential_id', authenticator.credentialId.toString('base64url'))
            .first()
        ).counter,
      );

    it('saves, then signs in: the script is sent on to the website, which reads reused: true', async () => {
      const authenticator = new SoftAuthenticator();
      const saved = await saveWith(authenticator);
      expect(saved.answer.body['location']).to.match(/\/result\?notice=passkey_saved$/);
      const { browser, answer } = await signInWith((options) => authenticator.get(options, { origin: app.url }));
      const landing = await browser.open(String(answer.body['location']), { stopAt: client.redirectUri });
      expect(await redeem(app, client, callbackOf(landing, client).get('code')!)).to.include({ reused: true });
      expect(await counterOf(authenticator)).to.equal(1);
    });

    it('refuses an assertion without user verification, from another origin, for another user handle, or replaying its counter', async () => {
      const authenticator = new SoftAuthenticator();
      await saveWith(authenticator);
      const refusals = [
        (options: Options) => authenticator.get(options, { origin: app.url, userVerified: false }),
        (options: Options) => authenticator.get(options, { origin: 'https://evil.example' }),
        (options: Options) => authenticator.get(options, { origin: app.url }, 'c29tZW9uZS1lbHNl'),
      ];
      for (const answer of refusals) {
        const refused = (await signInWith(answer)).answer;
        expect(refused.status).to.equal(401);
        expect(refused.body).to.include({ error: 'refused', message: 'This passkey could not be accepted.' });
      }
      expect(await counterOf(authenticator)).to.equal(0);
      expect((await signInWith((options) => authenticator.get(options, { origin: app.url }))).answer.status).to.equal(
        200,
      );
      authenticator.counter -= 1; // a clone still at the previous state
      expect((await signInWith((options) => authenticator.get(options, { origin: app.url }))).answer.status).to.equal(
        401,
      );
    });

    it('refuses a registration without user verification, and one claiming a credential id already saved (409, no account made)', async () => {
      const unverified = new SoftAuthenticator();
      const refused = await saveWith(unverified, (options) =>
        unverified.create(options, { origin: app.url, userVerified: false }),
      );
      expect(refused.answer).to.deep.include({ status: 400 });
      const victim = new SoftAuthenticator();
      await saveWith(victim);
      const accounts = await rowCount('visitor_accounts');
      const forger = new SoftAuthenticator(victim.credentialId);
      const forged = await saveWith(forger);
      expect(forged.answer.status).to.equal(409);
      expect(forged.answer.body).to.include({ error: 'refused' });
      expect(await rowCount('visitor_accounts')).to.equal(accounts);
      // The victim's passkey still works.
      expect((await signInWith((options) => victim.get(options, { origin: app.url }))).answer.status).to.equal(200);
    });
  });
  // Last: it spends this address's sign-in points for the rest of the file.
  describe('rate limits', () => {
    it('limits passkey sign-in attempts per address (429 once spent)', async () => {
      const browser = visitor();
      const { signIn } = pathsOf(await signInPage(browser));
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 52; attempt++)
        statuses.push((await postJson(browser, signIn, { response: 'x' })).status);
      expect(statuses.filter((status) => status === 429).length).to.be.above(0);
      expect(statuses.at(-1)).to.equal(429);
    });
  });
});

describe('passkeys at an issuer they cannot work at (an IP address)', function () {
  this.timeout(120_000);
  let app: TestApp;
  let client: ClientFixture;
  const logger = keptLogger('warn');

  before(async () => {
    ({ app, client } = await startAppWithClient({ environment: 'TEST', challenges: ['selfie', 'ticket'] }, { logger }));
  });
  after(() => app.close());

  it('offers none, says why on the result page, and tells the operator once at start-up', async () => {
    const browser = new Browser(app.url, { headers: { 'accept-language': 'en' } });
    const choice = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));
    expect(choice.html).not.to.contain('data-passkey');
    const result = expectPage(await submitSandbox(browser, await browser.open(linkWithText(choice, 'Selfie'))));
    expect(result.html).not.to.contain('data-passkey').and.not.to.contain('/static/passkeys.js');
    expect(result.html).to.contain('Saving this result to a passkey is not offered here');
    const signIn = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client, 'login'))));
    expect(signIn.html).not.to.contain('data-passkey');
    expect(logger.lines.filter((line) => line.includes('passkeys are not offered'))).to.have.length(1);
  });
});
