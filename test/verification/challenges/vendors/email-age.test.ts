import { expect } from 'chai';
import nock from 'nock';
import { startTestApp, type TestApp } from '../../../helpers/app.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../../../helpers/fixtures.js';
import { startSmtpSink } from '../../../helpers/smtp-sink.js';
import { onlyVendorsFaked, recordingLogger, restoreNetwork, YOTI_SDK_ID } from './helpers/vendors.js';
import { resourcesAfterPass, startChallenge } from './helpers/flow.js';
import type { Browser } from '../../../helpers/browser.js';

const yoti = () => nock('https://age.yoti.com').post('/api/v2/non-interactive');
const answer = (status: string, result: boolean) => ({
  evidence_id: '6c1f7e0a-2b3d-4c5e-8f9a-0b1c2d3e4f5a',
  method: 'EMAIL',
  created_at: '2026-11-21T04:00:00Z',
  attempts: 1,
  status,
  result,
  age: 18,
  type: 'OVER',
});

describe('email_age challenge (LIVE, real SMTP to a local sink, Yoti faked at its host)', () => {
  let app: TestApp;
  let live: ClientFixture;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  const log = recordingLogger();

  before(async () => {
    onlyVendorsFaked();
    smtp = await startSmtpSink();
    app = await startTestApp({
      logger: log,
      env: {
        EMAIL_AGE_YOTI_API_KEY: 'yoti-api-key-123',
        EMAIL_AGE_YOTI_SDK_ID: YOTI_SDK_ID,
        EMAIL_AGE_DEFAULT_COUNTRY: 'GB',
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Age Provider <no-reply@age.example>',
        VENDOR_TIMEOUT_MS: '500',
      },
    });
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    live = await createClientFixture(app.provider.runtime, webmaster.id, {
      environment: 'LIVE',
      name: 'Wine Shop',
      challenges: ['email_age', 'ticket'],
    });
  });
  afterEach(() => nock.cleanAll());
  after(async () => {
    restoreNetwork();
    await app.close();
    await smtp.close();
  });

  /** Everything the database holds, as text: the address must never be found in it. */
  async function wholeDatabase(): Promise<string> {
    const tables = await app.provider.db.raw('select tablename from pg_tables where schemaname = current_schema()');
    const names = (tables as { rows: Array<{ tablename: string }> }).rows.map((row) => row.tablename);
    const dumps = await Promise.all(names.map((name) => app.provider.db(name).select()));
    return JSON.stringify(dumps);
  }

  async function sendCode(visitor: Browser, uid: string, email: string): Promise<string> {
    const sent = smtp.mails.length;
    const response = await visitor.request(`/v1/oauth2/interaction/${uid}/challenge/email_age/send`, {
      body: { email },
    });
    expect(response.status).to.equal(200);
    expect(visitor.html).to.contain('Enter the code we sent you');
    expect(smtp.mails.length).to.equal(sent + 1);
    const mail = smtp.mails.at(-1)!;
    expect(mail.to.join()).to.contain(email);
    expect(mail.data).to.contain('Wine Shop');
    const code = /Your code is: (\d{6})/.exec(mail.data)?.[1];
    if (!code) throw new Error(`no code in ${mail.data}`);
    return code;
  }

  const key = (visitor: Browser): string => /name="key" value="([^"]+)"/.exec(visitor.html)![1]!;
  const verify = (visitor: Browser, uid: string, code: string, keyValue = key(visitor), token = visitor.csrf) =>
    visitor.request(`/v1/oauth2/interaction/${uid}/challenge/email_age/verify`, {
      body: { code, key: keyValue },
      csrf: token,
    });

  it('proves the address with a mailed code, asks Yoti, passes at STANDARD, and forgets the address', async () => {
    const { visitor, uid, page } = await startChallenge(app, live, 'email_age');
    expect(page.status).to.equal(200);
    expect(visitor.html).to.contain('Verify your age with your email address').and.contain('type="email"');
    const code = await sendCode(visitor, uid, 'ada.lovelace@example.org');
    expect(await wholeDatabase()).not.to.contain('ada.lovelace');
    const call = nock('https://age.yoti.com')
      .post('/api/v2/non-interactive', {
        type: 'OVER',
        threshold: 18,
        evidence: { email: { address: 'ada.lovelace@example.org' }, country: 'GB' },
      })
      .reply(200, answer('COMPLETE', true));
    const response = await verify(visitor, uid, code);
    expect(call.isDone()).to.equal(true);
    expect(response.headers.get('location')).to.match(/\/result$/);
    await visitor.follow(response);
    expect(await resourcesAfterPass(app, live, visitor, uid)).to.include({
      verified: true,
      assurance_level: 'STANDARD',
    });
    expect(await app.provider.db('verifications').select('method')).to.deep.include({ method: 'email_age' });
    expect(await wholeDatabase()).not.to.contain('ada.lovelace');
    expect(log.lines.join('\n')).not.to.contain('ada.lovelace');
  });

  it('counts wrong codes: 5 wrong ones end the challenge as failed, with nothing recorded', async () => {
    const { visitor, uid } = await startChallenge(app, live, 'email_age');
    const code = await sendCode(visitor, uid, 'bob@example.org');
    const wrong = code === '000000' ? '111111' : '000000';
    const keyValue = key(visitor);
    const token = visitor.csrf;
    for (let left = 4; left >= 1; left--) {
      const response = await verify(visitor, uid, wrong, keyValue);
      expect(response.status).to.equal(422);
      expect(visitor.html).to.contain(`You have ${left} attempts left`);
    }
    const last = await verify(visitor, uid, wrong, keyValue);
    expect(last.headers.get('location')).to.match(/\/choose\?notice=failed$/);
    const after = await verify(visitor, uid, code, keyValue, token);
    expect(after.status, 'the right code no longer works once the challenge ended').to.equal(400);
  });

  it('refuses when Yoti says FAIL or cannot tell, and goes back to the choice with "unavailable" when Yoti is down', async () => {
    for (const [reply, notice] of [
      [() => yoti().reply(200, answer('FAIL', false)), 'refused'],
      [() => yoti().reply(200, answer('INSUFFICIENT_DATA', false)), 'refused'],
      [() => yoti().reply(500), 'unavailable'],
      [() => yoti().delay(3000).reply(200, answer('COMPLETE', true)), 'unavailable'],
    ] as const) {
      const { visitor, uid } = await startChallenge(app, live, 'email_age');
      const code = await sendCode(visitor, uid, 'carol@example.org');
      reply();
      const response = await verify(visitor, uid, code);
      expect(response.headers.get('location')).to.match(new RegExp(`/choose\\?notice=${notice}$`));
    }
  });

  it("rejects a malformed address and a code without the browser's key, without mailing or asking Yoti", async () => {
    const call = yoti().reply(200, answer('COMPLETE', true));
    const { visitor, uid } = await startChallenge(app, live, 'email_age');
    const sent = smtp.mails.length;
    expect(
      (
        await visitor.request(`/v1/oauth2/interaction/${uid}/challenge/email_age/send`, {
          body: { email: 'not-an-address' },
        })
      ).status,
    ).to.equal(400);
    expect(smtp.mails.length).to.equal(sent);
    const code = await sendCode(visitor, uid, 'dan@example.org');
    expect((await verify(visitor, uid, code, 'A'.repeat(43))).status).to.equal(400);
    expect(call.isDone()).to.equal(false);
  });

  it('runs the sandbox, never Yoti nor the mail server, for a TEST client', async () => {
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    const test = await createClientFixture(app.provider.runtime, webmaster.id, {
      environment: 'TEST',
      challenges: ['email_age', 'ticket'],
    });
    const call = yoti().reply(200, answer('COMPLETE', true));
    const sent = smtp.mails.length;
    const { visitor } = await startChallenge(app, test, 'email_age');
    expect(visitor.html).not.to.contain('type="email"');
    expect(call.isDone()).to.equal(false);
    expect(smtp.mails.length).to.equal(sent);
  });
});
