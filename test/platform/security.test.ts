import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Browser, formOf, type Page } from '../helpers/browser.js';
import { signedInWebmaster } from '../helpers/platform.js';
import { TEST_ORIGIN } from '../helpers/fixtures.js';
import { issueApiToken } from '../../lib/webmasters/api-tokens.js';

const NEW_PASSWORD = 'a brand new passphrase';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

describe('platform sign-in and security: the password and the sessions, on two instances of one database', function () {
  this.timeout(180_000);
  let first: TestApp;
  let second: TestApp;
  let offsetSeconds = 0;
  const clock = { now: () => new Date(Date.now() + offsetSeconds * 1000) };
  before(async () => {
    first = await startTestApp({ trustProxy: true, clock });
    second = await startTestApp({ trustProxy: true, clock }, { shared: first.database });
  });
  after(async () => {
    await second?.close();
    await first?.close();
  });
  afterEach(() => {
    offsetSeconds = 0;
  });

  /** The same webmaster signed in on the second instance from another browser. */
  async function alsoOn(
    app: TestApp,
    email: string,
    password: string,
    headers: Record<string, string>,
  ): Promise<Browser> {
    const browser = new Browser(app.url, { headers });
    await browser.open('/platform/signin');
    expect((await browser.post('/platform/signin', { email, password })).url.pathname).to.equal('/platform/websites');
    return browser;
  }
  const reaches = async (browser: Browser, path: string) => (await browser.open(path)).url.pathname === path;
  const signIn = async (app: TestApp, email: string, password: string) => {
    const browser = new Browser(app.url);
    await browser.open('/platform/signin');
    return (await browser.post('/platform/signin', { email, password })).url.pathname === '/platform/websites';
  };
  const changeForm = async (browser: Browser): Promise<Page> => browser.open('/platform/account/security');

  it('changing the password with the current one signs out every other session, on both instances, and nothing else', async () => {
    const owner = await signedInWebmaster(first, undefined, { 'user-agent': FIREFOX, 'x-forwarded-for': '192.0.2.10' });
    const phone = await alsoOn(second, owner.email, owner.password, {
      'user-agent': SAFARI,
      'x-forwarded-for': '192.0.2.20',
    });
    const bystander = await signedInWebmaster(second);
    const token = await issueApiToken(first.provider.db, first.provider.runtime.clock, owner.id, TEST_ORIGIN);

    offsetSeconds = 11 * 60; // not a fresh sign-in any more: the current password is asked
    const page = await changeForm(owner.client);
    expect(page.html).to.contain('id="current"');
    const wrong = await owner.client.submit(formOf(page, { action: '/platform/account/password' }), {
      current: 'not the password',
      password: NEW_PASSWORD,
      confirm: NEW_PASSWORD,
    });
    expect(wrong.status).to.equal(400);
    expect(wrong.html).to.contain('The current password is not right.');
    expect(await reaches(phone, '/platform/account'), 'a refused change ends nothing').to.equal(true);

    const changed = await owner.client.submit(formOf(wrong, { action: '/platform/account/password' }), {
      current: owner.password,
      password: NEW_PASSWORD,
      confirm: NEW_PASSWORD,
    });
    expect(changed.url.pathname).to.equal('/platform/account/security');
    expect(changed.html).to.contain('Your password is changed, and every other browser is signed out.');
    expect(await reaches(owner.client, '/platform/account'), 'this session stays').to.equal(true);
    expect(await reaches(phone, '/platform/account'), 'the phone on the other instance').to.equal(false);
    expect(await reaches(bystander.client, '/platform/account'), 'another webmaster').to.equal(true);
    expect(await signIn(second, owner.email, owner.password)).to.equal(false);
    expect(await signIn(second, owner.email, NEW_PASSWORD)).to.equal(true);
    // Nothing else: the API token still works.
    expect(
      (await fetch(`${second.url}/external/website`, { headers: { authorization: `Bearer ${token}` } })).status,
    ).to.equal(200);
    const audit = await first.provider
      .db('audit_entries')
      .where({ webmaster_id: owner.id, action: 'webmaster.password.changed' });
    expect(audit).to.have.length(1);
  });

  it('within ten minutes of signing in the current password is not asked; a short or mismatched one is refused', async () => {
    const owner = await signedInWebmaster(first);
    const page = await changeForm(owner.client);
    expect(page.html).not.to.contain('id="current"');
    const short = await owner.client.submit(formOf(page, { action: '/platform/account/password' }), {
      password: 'short',
      confirm: 'short',
    });
    expect(short.status).to.equal(400);
    expect(short.html).to.contain('The password must have between 12 and 256 characters.');
    const mismatch = await owner.client.submit(formOf(short, { action: '/platform/account/password' }), {
      password: NEW_PASSWORD,
      confirm: 'something else entirely',
    });
    expect(mismatch.html).to.contain('The two passwords do not match.');
    expect(await signIn(first, owner.email, owner.password)).to.equal(true);
    const done = await owner.client.submit(formOf(mismatch, { action: '/platform/account/password' }), {
      password: NEW_PASSWORD,
      confirm: NEW_PASSWORD,
    });
    expect(done.html).to.contain('Your password is changed');
    expect(await signIn(first, owner.email, NEW_PASSWORD)).to.equal(true);
  });

  it('guessing the current password from an open session is limited; the owner gets in by signing in afresh', async () => {
    const owner = await signedInWebmaster(first);
    offsetSeconds = 11 * 60;
    const statuses: number[] = [];
    for (let n = 0; n < 6; n++) {
      const page = await changeForm(owner.client);
      statuses.push(
        (
          await owner.client.submit(formOf(page, { action: '/platform/account/password' }), {
            current: `guess ${n}`,
            password: NEW_PASSWORD,
            confirm: NEW_PASSWORD,
          })
        ).status,
      );
    }
    expect(statuses).to.deep.equal([400, 400, 400, 400, 400, 429]);
    const again = await alsoOn(first, owner.email, owner.password, {});
    const page = await changeForm(again);
    expect(
      (
        await again.submit(formOf(page, { action: '/platform/account/password' }), {
          password: NEW_PASSWORD,
          confirm: NEW_PASSWORD,
        })
      ).html,
    ).to.contain('Your password is changed');
  });

  it('lists the sessions with browser, address and last request, and signs out one or every other, on every instance', async () => {
    const owner = await signedInWebmaster(first, undefined, { 'user-agent': FIREFOX, 'x-forwarded-for': '192.0.2.30' });
    const phone = await alsoOn(second, owner.email, owner.password, {
      'user-agent': SAFARI,
      'x-forwarded-for': '192.0.2.40',
    });
    const tablet = await alsoOn(second, owner.email, owner.password, {
      'user-agent': 'curl/8.0',
      'x-forwarded-for': '192.0.2.50',
    });
    const stranger = await signedInWebmaster(first);

    const page = await changeForm(owner.client);
    const text = page.html.replace(/\s+/g, ' ');
    expect(text)
      .to.contain('Firefox on Linux')
      .and.contain('(this browser)')
      .and.contain('Safari on iOS')
      .and.contain('From 192.0.2.40');
    expect(text).to.match(/last seen \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    const forms = [...page.html.matchAll(/name="session" value="([0-9a-f]{64})"/g)].map((match) => match[1]!);
    expect(forms).to.have.length(3);
    expect(page.html).not.to.contain(owner.client.cookies.get('ap_platform')!);

    // Another webmaster cannot end these sessions with their keys.
    const strangerPage = await changeForm(stranger.client);
    for (const key of forms)
      await stranger.client.post('/platform/account/sessions/end', {
        session: key,
        _csrf: formOf(strangerPage, { action: '/platform/account/sessions/end' }).fields._csrf as string,
      });
    expect(await reaches(phone, '/platform/account')).to.equal(true);

    // One: the phone's, on the other instance.
    const phoneKey = /Safari on iOS[\s\S]*?name="session" value="([0-9a-f]{64})"/.exec(page.html)![1]!;
    const ended = await owner.client.submit(formOf(page, { action: '/platform/account/sessions/end' }), {
      session: phoneKey,
    });
    expect(ended.html).to.contain('Signed out.');
    expect(await reaches(phone, '/platform/account')).to.equal(false);
    expect(await reaches(tablet, '/platform/account')).to.equal(true);

    // Every other.
    await owner.client.submit(
      formOf(await changeForm(owner.client), { action: '/platform/account/sessions/end-others' }),
    );
    expect(await reaches(tablet, '/platform/account')).to.equal(false);
    expect(await reaches(owner.client, '/platform/account')).to.equal(true);
    expect(await reaches(stranger.client, '/platform/account')).to.equal(true);

    // Its own: this browser is signed out.
    const own = await changeForm(owner.client);
    const ownKey = /name="session" value="([0-9a-f]{64})"/.exec(own.html)![1]!;
    expect(
      (await owner.client.submit(formOf(own, { action: '/platform/account/sessions/end' }), { session: ownKey })).url
        .pathname,
    ).to.equal('/platform/signin');
  });
});
