import { expect } from 'chai';
import * as OTPAuth from 'otpauth';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Browser, decodeHtml, formOf, type Page } from '../helpers/browser.js';
import { signedInWebmaster } from '../helpers/platform.js';
import { bodyOf, mailNumber, startSmtpSink } from '../helpers/smtp-sink.js';

const MAIL = { SMTP_URL: '', MAIL_FROM: 'Age Provider <no-reply@age.test>' };

/** The authenticator app: an independent TOTP implementation (otpauth) fed the key the page showed. */
const authenticator = (secret: string) =>
  new OTPAuth.TOTP({
    secret: OTPAuth.Secret.fromBase32(secret.replace(/\s/g, '')),
    digits: 6,
    period: 30,
    algorithm: 'SHA1',
  });
/** The app's code `steps` periods from now (a code works once: each sign-in of a test takes the next one). */
const codeAt = (app: OTPAuth.TOTP, steps: number) => app.generate({ timestamp: Date.now() + steps * 30_000 });

describe('platform second factor: TOTP and recovery codes, asked on every sign-in path and every instance', function () {
  this.timeout(240_000);
  let first: TestApp;
  let required: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  before(async () => {
    smtp = await startSmtpSink();
    first = await startTestApp({ env: { ...MAIL, SMTP_URL: smtp.url } });
    // A second instance on the same database, whose operator requires a second factor of every webmaster.
    required = await startTestApp(
      { env: { ...MAIL, SMTP_URL: smtp.url, WEBMASTER_SECOND_FACTOR_REQUIRED: 'true' } },
      { shared: first.database },
    );
  });
  after(async () => {
    await required?.close();
    await first?.close();
    await smtp?.close();
  });

  const reaches = async (browser: Browser, path: string) => (await browser.open(path)).url.pathname === path;
  async function passwordSignIn(
    app: TestApp,
    email: string,
    password: string,
  ): Promise<{ browser: Browser; landed: Page }> {
    const browser = new Browser(app.url);
    await browser.open('/platform/signin');
    return { browser, landed: await browser.post('/platform/signin', { email, password }) };
  }
  /** A webmaster who added an authenticator app through the pages, with the app and the recovery codes shown. */
  async function withAuthenticator(): Promise<{
    email: string;
    password: string;
    id: number;
    app: OTPAuth.TOTP;
    codes: string[];
    client: Browser;
  }> {
    const owner = await signedInWebmaster(first);
    const none = await owner.client.open('/platform/account/second-factor');
    const adding = await owner.client.submit(formOf(none, { action: '/platform/account/second-factor/totp' }));
    const secret = decodeHtml(/<code id="totp-secret">([^<]+)<\/code>/.exec(adding.html)![1]!);
    expect(adding.html).to.contain('<svg');
    const app = authenticator(secret);
    const wrong = await owner.client.submit(
      formOf(adding, { action: '/platform/account/second-factor/totp/confirm' }),
      { code: '000000' === codeAt(app, 0) ? '111111' : '000000' },
    );
    expect(wrong.status).to.equal(400);
    const shown = await owner.client.submit(formOf(wrong, { action: '/platform/account/second-factor/totp/confirm' }), {
      code: codeAt(app, 0),
    });
    const codes = [...shown.html.matchAll(/<li><code>([a-z2-7-]+)<\/code><\/li>/g)].map((match) => match[1]!);
    expect(codes).to.have.length(10);
    const stored = await first.provider.db('webmaster_recovery_codes').where('webmaster_id', owner.id);
    expect(JSON.stringify(stored)).not.to.contain(codes[0]);
    const totp = await first.provider.db('webmaster_totp').where('webmaster_id', owner.id).first();
    expect(totp.secret_sealed).not.to.contain(secret.replace(/\s/g, ''));
    return { ...owner, app, codes };
  }

  it("after a password, only the second factor's page is reachable; a wrong code is refused, the app's next code lets in once", async () => {
    const owner = await withAuthenticator();
    const { browser, landed } = await passwordSignIn(first, owner.email, owner.password);
    expect(landed.url.pathname).to.equal('/platform/signin/second-factor');
    for (const path of [
      '/platform/websites',
      '/platform/account',
      '/platform/account/security',
      '/platform/account/second-factor',
    ]) {
      expect((await browser.open(path)).url.pathname, path).to.equal('/platform/signin/second-factor');
    }
    expect(
      (await browser.post('/platform/websites', { name: 'Sneaky', domain: 'sneaky.example.com' })).url.pathname,
    ).to.equal('/platform/signin/second-factor');
    const refused = await browser.submit(formOf(landed, { action: '/platform/signin/second-factor' }), {
      code: 'nope',
    });
    expect(refused.status).to.equal(400);
    // The code already used when the app was added is spent: the next one works, and only once.
    const inside = await browser.submit(formOf(refused, { action: '/platform/signin/second-factor' }), {
      code: codeAt(owner.app, 1),
    });
    expect(inside.url.pathname).to.equal('/platform/websites');
    const again = await passwordSignIn(first, owner.email, owner.password);
    expect(
      (
        await again.browser.submit(formOf(again.landed, { action: '/platform/signin/second-factor' }), {
          code: codeAt(owner.app, 1),
        })
      ).status,
      'a replayed code',
    ).to.equal(400);
  });

  it('is asked after a mailed sign-in code, after a reset link, and on another instance', async () => {
    const owner = await withAuthenticator();
    // The mailed code.
    const laptop = new Browser(first.url);
    const entry = await laptop.submit(
      formOf(await laptop.open('/platform/signin/code'), { action: '/platform/signin/code' }),
      { email: owner.email },
    );
    const code = /: (\d{8})\b/.exec(bodyOf(await mailNumber(smtp.mails, owner.email, 1)))![1]!;
    expect(
      (await laptop.submit(formOf(entry, { action: '/platform/signin/code/enter' }), { code })).url.pathname,
    ).to.equal('/platform/signin/second-factor');
    expect(await reaches(laptop, '/platform/websites')).to.equal(false);
    // The reset link sets the password, and the second factor is still asked.
    const phone = new Browser(first.url);
    await phone.submit(formOf(await phone.open('/platform/password/forgot'), { action: '/platform/password/forgot' }), {
      email: owner.email,
    });
    const link = /http:\/\/127\.0\.0\.1:\d+\/platform\/password\/[A-Za-z0-9_-]{43}/.exec(
      bodyOf(await mailNumber(smtp.mails, owner.email, 2)),
    )![0];
    const reset = await phone.submit(formOf(await phone.open(link), { action: new URL(link).pathname }), {
      password: 'a reset passphrase',
      confirm: 'a reset passphrase',
    });
    expect(reset.url.pathname).to.equal('/platform/signin/second-factor');
    expect(await reaches(phone, '/platform/account')).to.equal(false);
    // Another instance of the same database.
    const elsewhere = await passwordSignIn(required, owner.email, 'a reset passphrase');
    expect(elsewhere.landed.url.pathname).to.equal('/platform/signin/second-factor');
    expect(await reaches(elsewhere.browser, '/platform/websites')).to.equal(false);
    expect(
      (
        await elsewhere.browser.submit(formOf(elsewhere.landed, { action: '/platform/signin/second-factor' }), {
          code: codeAt(owner.app, 1),
        })
      ).url.pathname,
    ).to.equal('/platform/websites');
  });

  it('takes a recovery code once; five wrong codes end the waiting session', async () => {
    const owner = await withAuthenticator();
    const { browser, landed } = await passwordSignIn(first, owner.email, owner.password);
    expect(
      (
        await browser.submit(formOf(landed, { action: '/platform/signin/second-factor' }), {
          code: owner.codes[0]!.toUpperCase(),
        })
      ).url.pathname,
    ).to.equal('/platform/websites');
    const again = await passwordSignIn(first, owner.email, owner.password);
    expect(
      (
        await again.browser.submit(formOf(again.landed, { action: '/platform/signin/second-factor' }), {
          code: owner.codes[0]!,
        })
      ).status,
    ).to.equal(400);

    const guesser = await passwordSignIn(first, owner.email, owner.password);
    let page = guesser.landed;
    for (let n = 0; n < 4; n++) {
      page = await guesser.browser.submit(formOf(page, { action: '/platform/signin/second-factor' }), {
        code: `00000${n}`,
      });
      expect(page.status).to.equal(400);
    }
    const fifth = await guesser.browser.submit(formOf(page, { action: '/platform/signin/second-factor' }), {
      code: '000009',
    });
    expect(fifth.url.pathname).to.equal('/platform/signin');
    expect(guesser.browser.cookies.has('ap_platform')).to.equal(false);
  });

  it('where the operator requires one, an account without is walked through adding it before anything else', async () => {
    const owner = await signedInWebmaster(first); // the first instance does not require it
    const { browser, landed } = await passwordSignIn(required, owner.email, owner.password);
    expect(landed.url.pathname).to.equal('/platform/account/second-factor');
    expect(landed.html).to.contain('The operator of this service requires a second factor');
    expect((await browser.open('/platform/websites')).url.pathname).to.equal('/platform/account/second-factor');
    const adding = await browser.submit(formOf(landed, { action: '/platform/account/second-factor/totp' }));
    const app = authenticator(decodeHtml(/<code id="totp-secret">([^<]+)<\/code>/.exec(adding.html)![1]!));
    await browser.submit(formOf(adding, { action: '/platform/account/second-factor/totp/confirm' }), {
      code: codeAt(app, 0),
    });
    expect(await reaches(browser, '/platform/websites')).to.equal(true);
    // And it cannot be removed there.
    const manage = await browser.open('/platform/account/second-factor');
    expect(manage.html)
      .to.contain('cannot be removed')
      .and.not.contain('action="/platform/account/second-factor/remove"');
  });

  it('is removed with one of its codes, and then not asked any more', async () => {
    const owner = await withAuthenticator();
    const manage = await owner.client.open('/platform/account/second-factor');
    expect(
      (
        await owner.client.submit(formOf(manage, { action: '/platform/account/second-factor/remove' }), {
          code: 'wrong',
        })
      ).status,
    ).to.equal(400);
    await owner.client.submit(formOf(manage, { action: '/platform/account/second-factor/remove' }), {
      code: owner.codes[3]!,
    });
    expect((await passwordSignIn(first, owner.email, owner.password)).landed.url.pathname).to.equal(
      '/platform/websites',
    );
    const actions = await first.provider
      .db('audit_entries')
      .where('webmaster_id', owner.id)
      .orderBy('seq')
      .pluck('action');
    expect(actions).to.include.members(['webmaster.second_factor.added', 'webmaster.second_factor.removed']);
  });
});
