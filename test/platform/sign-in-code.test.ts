import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { sha256 } from '../../lib/security/hashing.js';
import { normalizeIdentifier } from '../../lib/security/identifiers.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Browser, formOf, type Page } from '../helpers/browser.js';
import { createWebmasterFixture, type WebmasterFixture } from '../helpers/fixtures.js';
import { startSmtpSink, type ReceivedMail } from '../helpers/smtp-sink.js';

/** A browser behind the trusted proxy at `ip`. */
const browserAt = (app: TestApp, ip: string): Browser => new Browser(app.url, { headers: { 'x-forwarded-for': ip } });

const signedIn = (page: Page): boolean => page.status === 200 && page.url.pathname === '/platform/websites';

describe('platform: a one-time sign-in code by email lets the owner in from a new browser during a flood', function () {
  this.timeout(180_000);
  let app: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
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

  /** The distributed flood of wrong passwords, as the per-account counter sees it after it: spent for the hour. */
  async function flood(owner: WebmasterFixture): Promise<void> {
    const account = app.provider.runtime.rateLimits.limiter('platform-signin-account');
    for (let n = 0; n < 100; n++) await account.record(sha256(normalizeIdentifier(owner.email)));
  }

  const mailsTo = (email: string): ReceivedMail[] =>
    smtp.mails.filter((mail) => mail.to.some((to) => to.includes(email)));

  /** Waits for the `count`th mail to `email` (a code is mailed after the answer) and reads its code. */
  async function codeMailed(email: string, count: number): Promise<string> {
    for (let waited = 0; mailsTo(email).length < count; waited++) {
      if (waited > 200) throw new Error(`no mail to ${email}`);
      await delay(50);
    }
    const mail = mailsTo(email)[count - 1]!;
    const code = /: (\d{8})\b/.exec(mail.data)?.[1];
    if (!code) throw new Error(`no code in ${mail.data}`);
    return code;
  }

  async function askForCode(browser: Browser, email: string): Promise<Page> {
    const signIn = await browser.open('/platform/signin');
    const ask = await browser.open(new URL(/href="(\/platform\/signin\/code)"/.exec(signIn.html)![1]!, app.url));
    return browser.submit(formOf(ask, { action: '/platform/signin/code' }), { email });
  }

  /** A new owner who asked for a code from a new browser at `ip`, and the code mailed. */
  async function ownerWithCode(
    ip: string,
  ): Promise<{ owner: WebmasterFixture; laptop: Browser; asked: Page; code: string }> {
    const owner = await createWebmasterFixture(
      app.provider.runtime,
      `owner-${randomBytes(4).toString('hex')}@example.test`,
    );
    const laptop = browserAt(app, ip);
    const asked = await askForCode(laptop, owner.email);
    return { owner, laptop, asked, code: await codeMailed(owner.email, 1) };
  }

  const enterCode = (browser: Browser, page: Page, code: string): Promise<Page> =>
    browser.submit(formOf(page, { action: '/platform/signin/code/enter' }), { code });

  it("after a flood the owner's new browser is throttled, gets a code by mail, signs in with it and is known from then on", async () => {
    const owner = await createWebmasterFixture(
      app.provider.runtime,
      `owner-${randomBytes(4).toString('hex')}@example.test`,
    );
    await flood(owner);
    const laptop = browserAt(app, '198.51.100.20');
    await laptop.open('/platform/signin');
    const throttled = await laptop.post('/platform/signin', { email: owner.email, password: owner.password });
    expect(throttled.status).to.equal(429);
    expect(Number(throttled.headers.get('retry-after'))).to.be.greaterThan(60);
    expect(throttled.html).to.contain('href="/platform/signin/code"');

    const asked = await askForCode(laptop, owner.email);
    expect(asked.status).to.equal(200);
    expect(asked.html).to.contain('If an account uses this address, a code is on its way to it.');
    const code = await codeMailed(owner.email, 1);
    expect(signedIn(await enterCode(laptop, asked, code))).to.equal(true);

    // The browser is a known device now: after signing out, its password passes the flood's counter.
    const websites = await laptop.open('/platform/websites');
    await laptop.submit(formOf(websites, { action: '/platform/signout' }));
    await laptop.open('/platform/signin');
    expect(signedIn(await laptop.post('/platform/signin', { email: owner.email, password: owner.password }))).to.equal(
      true,
    );
  });

  it('refuses a wrong code, a code from another browser, a code its browser replaced, and a code after five wrong entries', async () => {
    const { owner, laptop, asked, code } = await ownerWithCode('198.51.100.21');
    const wrong = code === '00000000' ? '11111111' : '00000000';

    const refused = await enterCode(laptop, asked, wrong);
    expect(refused.status).to.equal(400);
    expect(refused.html).to.contain('This code is wrong, already used or expired.');
    // Another browser with the right code: the code belongs to the browser that asked for it.
    const stranger = browserAt(app, '203.0.113.50');
    const strangerPage = await askForCode(stranger, `nobody-${randomBytes(4).toString('hex')}@example.test`);
    expect((await enterCode(stranger, strangerPage, code)).status).to.equal(400);

    expect(signedIn(await enterCode(laptop, refused, code))).to.equal(true);

    // A browser's new code replaces its earlier one.
    const tablet = browserAt(app, '198.51.100.24');
    const first = await askForCode(tablet, owner.email);
    const replaced = await codeMailed(owner.email, 2);
    await askForCode(tablet, owner.email);
    const current = await codeMailed(owner.email, 3);
    expect((await enterCode(tablet, first, replaced)).status, 'the replaced code').to.equal(400);
    expect(signedIn(await enterCode(tablet, first, current)), 'the current code').to.equal(true);

    // Five wrong entries spend a code: the right one is refused afterwards.
    const phone = browserAt(app, '198.51.100.23');
    const phonePage = await askForCode(phone, owner.email);
    const phoneCode = await codeMailed(owner.email, 4);
    let page = phonePage;
    for (let n = 0; n < 5; n++) page = await enterCode(phone, page, phoneCode === '22222222' ? '33333333' : '22222222');
    expect((await enterCode(phone, page, phoneCode)).status).to.equal(400);
  });

  it('asking six times at once from one page sends one mail, and every repeat lands where the first did', async () => {
    const owner = await createWebmasterFixture(
      app.provider.runtime,
      `owner-${randomBytes(4).toString('hex')}@example.test`,
    );
    const laptop = browserAt(app, '198.51.100.70');
    const form = formOf(await laptop.open('/platform/signin/code'), { action: '/platform/signin/code' });
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        laptop.request(form.action, { body: { ...form.fields, email: owner.email }, csrf: null }),
      ),
    );
    expect(answers.map((answer) => [answer.status, answer.headers.get('location')])).to.deep.equal(
      Array.from({ length: 6 }, () => [303, '/platform/signin/code/enter']),
    );
    const code = await codeMailed(owner.email, 1);
    await delay(300);
    expect(mailsTo(owner.email), 'one mail').to.have.length(1);
    expect(
      signedIn(await enterCode(laptop, await laptop.open('/platform/signin/code/enter'), code)),
      'and its code works in that browser',
    ).to.equal(true);
  });

  it('keeps no code in clear, and refuses a code past its ten minutes', async () => {
    const { owner, laptop, asked, code } = await ownerWithCode('198.51.100.60');
    const rows = await app.database.db('sign_in_codes').where('webmaster_id', owner.id);
    expect(rows).to.have.length(1);
    expect(JSON.stringify(rows)).not.to.contain(code);
    // Ten minutes later, as the database sees it.
    await app.database
      .db('sign_in_codes')
      .where('webmaster_id', owner.id)
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect((await enterCode(laptop, asked, code)).status).to.equal(400);
  });

  it('a code is used once, also when the same browser posts it six times at once, and refused after', async () => {
    const { owner, laptop, asked, code } = await ownerWithCode('198.51.100.30');
    const form = formOf(asked, { action: '/platform/signin/code/enter' });
    const sessions = async () =>
      Number((await app.database.db('platform_sessions').where('webmaster_id', owner.id).count({ n: '*' }).first())?.n);
    const before = await sessions();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => laptop.request(form.action, { body: { ...form.fields, code }, csrf: null })),
    );
    // Every repeat lands where the first did; one session was opened, by the one post that spent the code.
    expect(answers.map((answer) => [answer.status, answer.headers.get('location')])).to.deep.equal(
      Array.from({ length: 6 }, () => [303, '/platform/websites']),
    );
    expect(
      answers.filter((answer) => (answer.headers.get('set-cookie') ?? '').includes('ap_platform=')),
      'one session cookie',
    ).to.have.length(1);
    expect(await sessions()).to.equal(before + 1);
    // The same code once more, after signing out: used.
    await laptop.submit(formOf(await laptop.open('/platform/websites'), { action: '/platform/signout' }));
    await laptop.open('/platform/signin/code');
    expect((await laptop.post('/platform/signin/code/enter', { code })).status).to.equal(400);
  });

  it('answers the same whether or not the address has an account, and mails only an account', async () => {
    const unknown = `nobody-${randomBytes(4).toString('hex')}@example.test`;
    const owner = await createWebmasterFixture(
      app.provider.runtime,
      `owner-${randomBytes(4).toString('hex')}@example.test`,
    );
    const forUnknown = await askForCode(browserAt(app, '198.51.100.40'), unknown);
    const forOwner = await askForCode(browserAt(app, '198.51.100.41'), owner.email);
    const strip = (html: string) => html.replace(/value="[^"]*"/g, '').replace(/nonce-[^']+'/g, '');
    expect(forUnknown.status).to.equal(forOwner.status);
    expect(strip(forUnknown.html)).to.equal(strip(forOwner.html));
    await codeMailed(owner.email, 1);
    await delay(300);
    expect(mailsTo(unknown)).to.have.length(0);
  });

  it('an attacker asking for codes from its network is throttled there, and the owner still gets in from another', async () => {
    const owner = await createWebmasterFixture(
      app.provider.runtime,
      `owner-${randomBytes(4).toString('hex')}@example.test`,
    );
    await flood(owner);
    const statuses: number[] = [];
    for (let n = 0; n < 6; n++) statuses.push((await askForCode(browserAt(app, '203.0.113.66'), owner.email)).status);
    expect(statuses.slice(0, 3)).to.deep.equal([200, 200, 200]);
    expect(statuses.slice(3)).to.deep.equal([429, 429, 429]);
    const laptop = browserAt(app, '198.51.100.50');
    const asked = await askForCode(laptop, owner.email);
    expect(asked.status).to.equal(200);
    const code = await codeMailed(owner.email, 4);
    expect(signedIn(await enterCode(laptop, asked, code))).to.equal(true);
  });
});
