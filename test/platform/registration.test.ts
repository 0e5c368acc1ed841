import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { hashPassword, sha256 } from '../../lib/security/hashing.js';
import { issueApiToken } from '../../lib/webmasters/api-tokens.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Browser, formOf, type Page } from '../helpers/browser.js';
import { createWebmasterFixture, TEST_ORIGIN } from '../helpers/fixtures.js';
import { bodyOf, mailNumber, mailsTo, startSmtpSink } from '../helpers/smtp-sink.js';

const PASSWORD = 'the owner passphrase';
const ATTACKER_PASSWORD = 'the attacker passphrase';
const newAddress = (who = 'owner') => `${who}-${randomBytes(4).toString('hex')}@bigshop.example`;
/** A page as a stranger compares two of them: without the per-page form values and nonces. */
const strip = (html: string) => html.replace(/value="[^"]*"/g, '').replace(/nonce-[^']+'/g, '');

describe('platform registration: nobody who cannot read the mailbox holds a credential to its account', function () {
  this.timeout(180_000);
  let app: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let ip = 10;
  /** A browser behind the trusted proxy at an address of its own (the per-address limits stay out of the way). */
  const browser = () => new Browser(app.url, { headers: { 'x-forwarded-for': `198.51.100.${ip++}` } });
  before(async () => {
    smtp = await startSmtpSink();
    app = await startTestApp({
      env: { TRUST_PROXY: 'true', SMTP_URL: smtp.url, MAIL_FROM: 'Age Provider <no-reply@age.test>' },
    });
  });
  after(async () => {
    await app?.close();
    await smtp?.close();
  });

  const register = async (client: Browser, email: string): Promise<Page> =>
    client.submit(formOf(await client.open('/platform/register'), { action: '/platform/register' }), { email });
  const forgot = async (client: Browser, email: string): Promise<Page> =>
    client.submit(formOf(await client.open('/platform/password/forgot'), { action: '/platform/password/forgot' }), {
      email,
    });
  /** The link of the `count`th mail to `email`. */
  const linkOf = async (email: string, count: number): Promise<string> => {
    const mail = await mailNumber(smtp.mails, email, count);
    const link = /http:\/\/127\.0\.0\.1:\d+\/platform\/password\/[A-Za-z0-9_-]{43}/.exec(bodyOf(mail))?.[0];
    if (!link) throw new Error(`no link in ${mail.data}`);
    return link;
  };
  const setPassword = async (client: Browser, link: string, password: string): Promise<Page> =>
    client.submit(formOf(await client.open(link), { action: new URL(link).pathname }), { password, confirm: password });
  const signIn = async (email: string, password: string): Promise<boolean> => {
    const client = browser();
    await client.open('/platform/signin');
    return (await client.post('/platform/signin', { email, password })).url.pathname === '/platform/websites';
  };
  const reaches = async (client: Browser, path: string) => (await client.open(path)).url.pathname === path;
  const webmasterRow = (email: string) => app.provider.db('webmasters').where('email', email).first();

  it('registers through the mailed link: nothing exists before it is used, it sets the password, signs in, and works once', async () => {
    const email = newAddress();
    const owner = browser();
    const asked = await register(owner, email);
    expect(asked.url.pathname).to.equal('/platform/register/sent');
    expect(asked.html).to.contain('A mail is on its way to this address. Its link works once, for 30 minutes.');
    const link = await linkOf(email, 1);
    expect(await webmasterRow(email), 'no account before the link is used').to.equal(undefined);
    const stored = await app.provider.db('password_links').where('email', email);
    expect(stored).to.have.length(1);
    expect(JSON.stringify(stored)).not.to.contain(link.split('/').pop());
    expect(stored[0].token_hash).to.equal(sha256(link.split('/').pop()!));

    const landed = await setPassword(owner, link, PASSWORD);
    expect(landed.url.pathname).to.equal('/platform/websites');
    expect(landed.html).to.contain(`Signed in as ${email}`);
    expect((await webmasterRow(email)).email_confirmed_at).to.not.equal(null);
    expect(await signIn(email, PASSWORD)).to.equal(true);
    // Used: the link's page says so, and posting it again changes nothing.
    const again = browser();
    const reopened = await again.open(link);
    expect(reopened.status).to.equal(404);
    expect(reopened.html).to.contain('This link is expired, already used, or replaced by a newer one.');
    await again.open('/platform/signin'); // a form token of this browser
    expect((await again.post(link, { password: ATTACKER_PASSWORD, confirm: ATTACKER_PASSWORD })).status).to.equal(404);
    expect(await signIn(email, ATTACKER_PASSWORD)).to.equal(false);
  });

  it('answers a registration the same for a known and an unknown address; the known one is mailed a reset, not a second account', async () => {
    const existing = await createWebmasterFixture(app.provider.runtime, newAddress('existing'));
    const unknown = newAddress('unknown');
    const forUnknown = await register(browser(), unknown);
    const forKnown = await register(browser(), existing.email.toUpperCase());
    expect([forKnown.status, forKnown.url.pathname]).to.deep.equal([forUnknown.status, forUnknown.url.pathname]);
    expect(strip(forKnown.html)).to.equal(strip(forUnknown.html));
    const mail = await mailNumber(smtp.mails, existing.email, 1);
    expect(bodyOf(mail)).to.contain('already has an account. Nothing was changed.');
    await linkOf(unknown, 1);
    // The known account is untouched until its mailbox's reader uses the link.
    expect(await signIn(existing.email, existing.password)).to.equal(true);
  });

  it("register first: the attacker who registers the owner's address gets no account, no password, no session", async () => {
    const email = newAddress();
    const attacker = browser();
    await register(attacker, email);
    await linkOf(email, 1); // in the owner's mailbox, not the attacker's
    expect(await webmasterRow(email)).to.equal(undefined);
    expect(await signIn(email, ATTACKER_PASSWORD)).to.equal(false);
    expect(await reaches(attacker, '/platform/account')).to.equal(false);
    // Registering again replaces the first link: only the newest mail works.
    await register(browser(), email);
    const first = await linkOf(email, 1);
    const second = await linkOf(email, 2);
    expect((await browser().open(first)).status).to.equal(404);
    const owner = browser();
    expect((await setPassword(owner, second, PASSWORD)).url.pathname).to.equal('/platform/websites');
    expect(await signIn(email, PASSWORD)).to.equal(true);
    expect(await signIn(email, ATTACKER_PASSWORD)).to.equal(false);
  });

  it("reset first: asking a reset for someone's account gives the asker nothing and leaves the account as it was", async () => {
    const owner = await createWebmasterFixture(app.provider.runtime, newAddress());
    const ownerBrowser = browser();
    await ownerBrowser.open('/platform/signin');
    await ownerBrowser.post('/platform/signin', { email: owner.email, password: owner.password });
    const attacker = browser();
    const unknown = newAddress('unknown');
    const forOwner = await forgot(attacker, owner.email);
    const forUnknown = await forgot(browser(), unknown);
    expect(forOwner.url.pathname).to.equal('/platform/password/forgot/sent');
    expect([forOwner.status, strip(forOwner.html)]).to.deep.equal([forUnknown.status, strip(forUnknown.html)]);
    expect(forOwner.html).to.contain('If an account uses this address, a mail is on its way to it.');
    expect(attacker.cookies.has('ap_platform')).to.equal(false);
    // The password and the session still work; the link went to the mailbox only, and no mail to an unknown address.
    expect(await signIn(owner.email, owner.password)).to.equal(true);
    expect(await reaches(ownerBrowser, '/platform/account')).to.equal(true);
    const link = await linkOf(owner.email, 1);
    await delay(200);
    expect(mailsTo(smtp.mails, unknown)).to.have.length(0);

    // The owner uses it: the new password works, the old one not, and every session (the owner's too) is ended.
    const phone = browser();
    expect((await setPassword(phone, link, PASSWORD)).url.pathname).to.equal('/platform/websites');
    expect(await reaches(ownerBrowser, '/platform/account'), 'the session from before the reset').to.equal(false);
    expect(await reaches(phone, '/platform/account'), 'the browser that set it').to.equal(true);
    expect(await signIn(owner.email, owner.password)).to.equal(false);
    expect(await signIn(owner.email, PASSWORD)).to.equal(true);
  });

  it('refuses a short or mismatched password next to its field, and keeps the link for a corrected try', async () => {
    const email = newAddress();
    await register(browser(), email);
    const link = await linkOf(email, 1);
    const owner = browser();
    const form = formOf(await owner.open(link), { action: new URL(link).pathname });
    const short = await owner.submit(form, { password: 'short', confirm: 'short' });
    expect(short.status).to.equal(400);
    expect(short.html)
      .to.contain('id="password-error"')
      .and.contain('The password must have between 12 and 256 characters.');
    const mismatched = await owner.submit(formOf(short, { action: new URL(link).pathname }), {
      password: PASSWORD,
      confirm: `${PASSWORD}!`,
    });
    expect(mismatched.status).to.equal(400);
    expect(mismatched.html).to.contain('The two passwords do not match.');
    expect(await webmasterRow(email)).to.equal(undefined);
    expect(
      (
        await owner.submit(formOf(mismatched, { action: new URL(link).pathname }), {
          password: PASSWORD,
          confirm: PASSWORD,
        })
      ).url.pathname,
    ).to.equal('/platform/websites');
  });

  it('a link posted six times at once sets one password and opens one session; a link past its 30 minutes is refused', async () => {
    const email = newAddress();
    await register(browser(), email);
    const link = await linkOf(email, 1);
    const owner = browser();
    const form = formOf(await owner.open(link), { action: new URL(link).pathname });
    // Six different submissions (no shared once value): only the link's single use decides.
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, n) =>
        owner.request(form.action, {
          body: { _csrf: form.fields._csrf as string, password: `${PASSWORD} ${n}`, confirm: `${PASSWORD} ${n}` },
          csrf: null,
        }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort((a, b) => a - b)).to.deep.equal([303, 404, 404, 404, 404, 404]);
    const winner = answers.findIndex((answer) => answer.status === 303);
    const row = await webmasterRow(email);
    expect(await app.provider.db('platform_sessions').where('webmaster_id', row.id)).to.have.length(1);
    expect(await signIn(email, `${PASSWORD} ${winner}`)).to.equal(true);

    const late = newAddress();
    await register(browser(), late);
    const expired = await linkOf(late, 1);
    await app.provider
      .db('password_links')
      .where('email', late)
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect((await browser().open(expired)).status).to.equal(404);
  });

  /** An account registered before addresses were proven, by someone who knows a password, signed in and holding a token. */
  async function legacyAccount(email: string) {
    const [row] = await app.provider
      .db('webmasters')
      .insert({ email, password_hash: await hashPassword(ATTACKER_PASSWORD), email_confirmed_at: null })
      .returning('id');
    const id = Number((row as { id: number }).id);
    const attacker = browser();
    await attacker.open('/platform/signin');
    expect(
      (await attacker.post('/platform/signin', { email, password: ATTACKER_PASSWORD })).url.pathname,
      'it keeps working',
    ).to.equal('/platform/websites');
    const token = await issueApiToken(app.provider.db, app.provider.runtime.clock, id, TEST_ORIGIN);
    const api = () =>
      fetch(`${app.url}/external/website`, { headers: { authorization: `Bearer ${token}` } }).then(
        (answer) => answer.status,
      );
    expect(await api()).to.equal(200);
    return { id, attacker, api };
  }

  it("an unproven account from before: the owner's mailed sign-in code leaves no credential of whoever registered it alive", async () => {
    const email = newAddress();
    const { attacker, api } = await legacyAccount(email);
    const owner = browser();
    const ask = formOf(await owner.open('/platform/signin/code'), { action: '/platform/signin/code' });
    const entry = await owner.submit(ask, { email });
    const code = /: (\d{8})\b/.exec((await mailNumber(smtp.mails, email, 1)).data)![1]!;
    expect(
      (await owner.submit(formOf(entry, { action: '/platform/signin/code/enter' }), { code })).url.pathname,
    ).to.equal('/platform/websites');

    expect(await reaches(attacker, '/platform/account'), "the attacker's session").to.equal(false);
    expect(await signIn(email, ATTACKER_PASSWORD), "the attacker's password").to.equal(false);
    expect(await api(), "the attacker's API token").to.equal(401);
    expect(await reaches(owner, '/platform/account')).to.equal(true);
    expect((await webmasterRow(email)).email_confirmed_at).to.not.equal(null);
  });

  it('an unproven account from before: the owner who registers again is mailed a link that takes it over the same way', async () => {
    const email = newAddress();
    const { attacker, api } = await legacyAccount(email);
    await register(browser(), email);
    expect(bodyOf(await mailNumber(smtp.mails, email, 1))).to.contain('already has an account');
    const owner = browser();
    expect((await setPassword(owner, await linkOf(email, 1), PASSWORD)).url.pathname).to.equal('/platform/websites');
    expect(await reaches(attacker, '/platform/account')).to.equal(false);
    expect(await signIn(email, ATTACKER_PASSWORD)).to.equal(false);
    expect(await api()).to.equal(401);
    expect(await signIn(email, PASSWORD)).to.equal(true);
    // Proven once, it stays as its owner set it: another code sign-in clears nothing.
    const laptop = browser();
    const entry = await laptop.submit(
      formOf(await laptop.open('/platform/signin/code'), { action: '/platform/signin/code' }),
      { email },
    );
    const code = /: (\d{8})\b/.exec((await mailNumber(smtp.mails, email, 2)).data)![1]!;
    await laptop.submit(formOf(entry, { action: '/platform/signin/code/enter' }), { code });
    expect(await reaches(owner, '/platform/account')).to.equal(true);
    expect(await signIn(email, PASSWORD)).to.equal(true);
  });

  it('limits registrations per network address (429), whatever the addresses asked for', async () => {
    const client = new Browser(app.url, { headers: { 'x-forwarded-for': '203.0.113.99' } });
    const statuses: number[] = [];
    for (let n = 0; n < 21; n++) statuses.push((await register(client, newAddress('many'))).status);
    expect(statuses.slice(0, 20).every((status) => status === 200)).to.equal(true);
    expect(statuses[20]).to.equal(429);
  });
});

describe('platform registration without a mail server', function () {
  this.timeout(60_000);
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app?.close());

  it('has no self-registration: the page says the operator creates accounts, and a post creates nothing', async () => {
    const client = new Browser(app.url);
    const page = await client.open('/platform/register');
    expect(page.status).to.equal(200);
    expect(page.html)
      .to.contain('Accounts on this service are created by its operator.')
      .and.not.contain('action="/platform/register');
    const email = newAddress();
    const posted = await client.post('/platform/register', { email, password: PASSWORD, confirm: PASSWORD });
    expect(posted.status).to.be.within(400, 499);
    expect(await app.provider.db('webmasters').where('email', email).first()).to.equal(undefined);
    expect((await client.open('/platform/signin')).html).not.to.contain('/platform/password/forgot');
  });
});
