import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Browser } from '../helpers/browser.js';
import { signedInWebmaster } from '../helpers/platform.js';
import { SoftAuthenticator } from '../oauth2/interactions/passkeys/soft-authenticator.js';

/**
 * A webmaster's passkey as the second factor, driven as our browser script drives it (options, then the answer)
 * with a software authenticator written apart from the verifier (node:crypto signatures, its own authenticator
 * data). Each attacker's move must leave the session waiting for its second factor.
 */
interface Options {
  challenge: string;
  rp: { id: string };
  user: { id: string };
  rpId: string;
  allowCredentials?: Array<{ id: string }>;
}

async function postJson(browser: Browser, path: string, fields: Record<string, string> = {}) {
  const response = await browser.request(path, { body: fields });
  return {
    status: response.status,
    json: (await response.json()) as Options & { location?: string; message?: string },
  };
}

describe('platform second factor: passkeys', function () {
  this.timeout(240_000);
  let first: TestApp;
  let second: TestApp;
  let origin: string;
  before(async () => {
    first = await startTestApp();
    // Another instance on the same database, whose operator requires a second factor of every webmaster.
    second = await startTestApp({ env: { WEBMASTER_SECOND_FACTOR_REQUIRED: 'true' } }, { shared: first.database });
    origin = new URL(first.url).origin;
  });
  after(async () => {
    await second?.close();
    await first?.close();
  });

  /** A webmaster who added a passkey through the page, with its recovery codes. */
  async function withPasskey(app = first) {
    const owner = await signedInWebmaster(app);
    await owner.client.open('/platform/account/second-factor');
    const authenticator = new SoftAuthenticator();
    const options = await postJson(owner.client, '/platform/account/second-factor/passkey/options');
    expect(options.status).to.equal(200);
    const added = await postJson(owner.client, '/platform/account/second-factor/passkey', {
      response: authenticator.create(options.json, { origin: new URL(app.url).origin }),
    });
    expect(added.json.location).to.equal('/platform/account/second-factor/codes');
    const shown = await owner.client.open(added.json.location!);
    const codes = [...shown.html.matchAll(/<li><code>([a-z2-7-]+)<\/code><\/li>/g)].map((match) => match[1]!);
    expect(codes).to.have.length(10);
    expect((await owner.client.open(added.json.location!)).url.pathname, 'shown once').to.equal(
      '/platform/account/second-factor',
    );
    return { ...owner, authenticator, codes };
  }

  async function passwordSignIn(app: TestApp, email: string, password: string) {
    const browser = new Browser(app.url);
    await browser.open('/platform/signin');
    const landed = await browser.post('/platform/signin', { email, password });
    return { browser, landed };
  }

  it('is added on the security page, named, listed, and asked at the next sign-in on every instance', async () => {
    const owner = await withPasskey();
    const page = await owner.client.open('/platform/account/second-factor');
    expect(page.html).to.contain('data-passkey="register"');
    expect(page.html).to.match(/<strong>[^<]+<\/strong>/);
    const stored = await first.provider.db('webmaster_passkeys').where('webmaster_id', owner.id);
    expect(stored).to.have.length(1);
    const audit = await first.provider
      .db('audit_entries')
      .where('action', 'webmaster.second_factor.added')
      .select('after');
    expect(JSON.stringify(audit)).to.contain('passkey');

    for (const app of [first, second]) {
      const { browser, landed } = await passwordSignIn(app, owner.email, owner.password);
      expect(landed.url.pathname, 'a password alone').to.equal('/platform/signin/second-factor');
      expect(landed.html).to.contain('data-passkey="sign-in"');
      expect((await browser.open('/platform/websites')).url.pathname).to.equal('/platform/signin/second-factor');
      const options = await postJson(browser, '/platform/signin/second-factor/passkey/options');
      expect(options.json.allowCredentials!.map((credential) => credential.id)).to.deep.equal([
        owner.authenticator.credentialId.toString('base64url'),
      ]);
      const inside = await postJson(browser, '/platform/signin/second-factor/passkey', {
        response: owner.authenticator.get(options.json, { origin: new URL(app.url).origin }),
      });
      expect(inside.json.location).to.equal('/platform/websites');
      expect((await browser.open('/platform/websites')).url.pathname).to.equal('/platform/websites');
    }
  });

  it("refuses another origin, a replayed answer, another key, a counter going back and another webmaster's passkey", async () => {
    const owner = await withPasskey();
    const other = await withPasskey();
    // One accepted use, so the stored signature counter is above 0 and a counter going back can be told.
    const earlier = await passwordSignIn(first, owner.email, owner.password);
    const earlierOptions = await postJson(earlier.browser, '/platform/signin/second-factor/passkey/options');
    const accepted = await postJson(earlier.browser, '/platform/signin/second-factor/passkey', {
      response: owner.authenticator.get(earlierOptions.json, { origin }),
    });
    expect(accepted.json.location).to.equal('/platform/websites');
    const storedCounter = owner.authenticator.counter;
    const { browser } = await passwordSignIn(first, owner.email, owner.password);
    const attempt = async (make: (options: Options) => string) => {
      const options = await postJson(browser, '/platform/signin/second-factor/passkey/options');
      return postJson(browser, '/platform/signin/second-factor/passkey', { response: make(options.json) });
    };
    const stillWaiting = async () =>
      expect((await browser.open('/platform/websites')).url.pathname).to.equal('/platform/signin/second-factor');

    const phishing = await attempt((options) =>
      owner.authenticator.get(options, { origin: 'https://age-provider.example' }),
    );
    expect(phishing.status).to.equal(401);
    expect(phishing.json.message).to.be.a('string').and.not.empty;
    await stillWaiting();

    // A valid answer captured from another sign-in is bound to that session's challenge.
    const elsewhere = await passwordSignIn(first, owner.email, owner.password);
    const theirs = await postJson(elsewhere.browser, '/platform/signin/second-factor/passkey/options');
    const captured = owner.authenticator.get(theirs.json, { origin });
    expect((await attempt(() => captured)).status, 'replayed').to.equal(401);
    await stillWaiting();

    const forger = new SoftAuthenticator(owner.authenticator.credentialId);
    forger.userHandle = owner.authenticator.userHandle;
    forger.counter = owner.authenticator.counter + 10;
    expect((await attempt((options) => forger.get(options, { origin }))).status, 'another key').to.equal(401);
    await stillWaiting();

    expect(
      (await attempt((options) => other.authenticator.get(options, { origin }))).status,
      "another webmaster's passkey",
    ).to.equal(401);

    // Five refusals end the waiting session: the next one is sent back to sign in.
    const fifth = await attempt((options) => {
      owner.authenticator.counter = storedCounter - 1; // a cloned authenticator replaying an older state
      return owner.authenticator.get(options, { origin });
    });
    expect(fifth.json.location).to.equal('/platform/signin');
    expect((await browser.open('/platform/websites')).url.pathname).to.equal('/platform/signin');
  });

  it('signing in again keeps the account the member acts on, through the second factor', async () => {
    const member = await withPasskey();
    const other = await signedInWebmaster(first);
    await first.provider
      .db('account_members')
      .insert({ account_id: other.id, webmaster_id: member.id, role: 'developer' });
    await member.client.open('/platform/accounts');
    const opened = await member.client.post(`/platform/accounts/${other.id}/open`, {});
    expect(opened.html).to.contain(`in the account of ${other.email}`);
    // A fresh sign-in in the same browser (as before a sensitive change), then the passkey.
    await member.client.open('/platform/signin');
    const landed = await member.client.post('/platform/signin', { email: member.email, password: member.password });
    expect(landed.url.pathname).to.equal('/platform/signin/second-factor');
    const options = await postJson(member.client, '/platform/signin/second-factor/passkey/options');
    const inside = await postJson(member.client, '/platform/signin/second-factor/passkey', {
      response: member.authenticator.get(options.json, { origin }),
    });
    expect(inside.json.location).to.equal('/platform/websites');
    expect((await member.client.open('/platform/websites')).html).to.contain(`in the account of ${other.email}`);
    // Another browser's sign-in starts in the member's own account.
    const { browser } = await passwordSignIn(first, member.email, member.password);
    const elsewhere = await postJson(browser, '/platform/signin/second-factor/passkey/options');
    await postJson(browser, '/platform/signin/second-factor/passkey', {
      response: member.authenticator.get(elsewhere.json, { origin }),
    });
    const own = await browser.open('/platform/websites');
    expect(own.url.pathname).to.equal('/platform/websites');
    expect(own.html).not.to.contain('in the account of');
  });

  it('two answers racing with one signature counter: one wins', async () => {
    const owner = await withPasskey();
    const one = await passwordSignIn(first, owner.email, owner.password);
    const two = await passwordSignIn(first, owner.email, owner.password);
    const optionsOne = await postJson(one.browser, '/platform/signin/second-factor/passkey/options');
    const optionsTwo = await postJson(two.browser, '/platform/signin/second-factor/passkey/options');
    const answerOne = owner.authenticator.get(optionsOne.json, { origin });
    owner.authenticator.counter -= 1; // the same counter in both answers, as a cloned authenticator's
    const answerTwo = owner.authenticator.get(optionsTwo.json, { origin });
    const results = await Promise.all([
      postJson(one.browser, '/platform/signin/second-factor/passkey', { response: answerOne }),
      postJson(two.browser, '/platform/signin/second-factor/passkey', { response: answerTwo }),
    ]);
    expect(results.filter((result) => result.json.location === '/platform/websites')).to.have.length(1);
  });

  it('a registration for another origin is refused; where one is required, a passkey completes the enrolment', async () => {
    const newcomer = await signedInWebmaster(first);
    const { browser, landed } = await passwordSignIn(second, newcomer.email, newcomer.password);
    expect(landed.url.pathname).to.equal('/platform/account/second-factor');
    const authenticator = new SoftAuthenticator();
    const options = await postJson(browser, '/platform/account/second-factor/passkey/options');
    const forged = await postJson(browser, '/platform/account/second-factor/passkey', {
      response: authenticator.create(options.json, { origin: 'https://age-provider.example' }),
    });
    expect(forged.status).to.equal(400);
    expect(await second.provider.db('webmaster_passkeys').where('webmaster_id', newcomer.id)).to.have.length(0);
    const again = await postJson(browser, '/platform/account/second-factor/passkey/options');
    const added = await postJson(browser, '/platform/account/second-factor/passkey', {
      response: authenticator.create(again.json, { origin: new URL(second.url).origin }),
    });
    expect(added.json.location).to.equal('/platform/account/second-factor/codes');
    expect((await browser.open('/platform/websites')).url.pathname, 'the session is full now').to.equal(
      '/platform/websites',
    );
  });

  it('removing the last passkey removes the recovery codes with it; the next sign-in asks nothing more', async () => {
    const owner = await withPasskey();
    const page = await owner.client.open('/platform/account/second-factor');
    const id = /name="passkey" value="(\d+)"/.exec(page.html)![1]!;
    const removed = await owner.client.post('/platform/account/second-factor/passkey/remove', { passkey: id });
    expect(removed.url.pathname).to.equal('/platform/account/second-factor');
    expect(await first.provider.db('webmaster_recovery_codes').where('webmaster_id', owner.id)).to.have.length(0);
    const { landed } = await passwordSignIn(first, owner.email, owner.password);
    expect(landed.url.pathname).to.equal('/platform/websites');
    // Another webmaster's passkey id changes nothing.
    const stranger = await withPasskey();
    const strangerId = (await first.provider.db('webmaster_passkeys').where('webmaster_id', stranger.id).first()).id;
    const refused = await owner.client.post('/platform/account/second-factor/passkey/remove', {
      passkey: String(strangerId),
    });
    expect(refused.status).to.equal(404);
    expect(await first.provider.db('webmaster_passkeys').where('webmaster_id', stranger.id)).to.have.length(1);
  });
});
