import { expect } from 'chai';
import { endSessions } from '../../lib/platform/sessions.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Browser } from '../helpers/browser.js';
import { createWebmasterFixture, type WebmasterFixture } from '../helpers/fixtures.js';

/** A browser signed in as `owner` on `app` with the password. */
async function signedInBrowser(app: TestApp, owner: WebmasterFixture): Promise<Browser> {
  const browser = new Browser(app.url);
  await browser.open('/platform/signin');
  const page = await browser.post('/platform/signin', { email: owner.email, password: owner.password });
  expect(page.url.pathname).to.equal('/platform/websites');
  return browser;
}

const reaches = async (browser: Browser, path: string): Promise<boolean> =>
  (await browser.open(path)).url.pathname === path;

describe('platform sessions: ending them holds on every instance of one database at once', function () {
  this.timeout(60_000);
  let first: TestApp;
  let second: TestApp;
  before(async () => {
    first = await startTestApp();
    second = await startTestApp({}, { shared: first.database });
  });
  after(async () => {
    await second?.close();
    await first?.close();
  });

  it("endSessions ends every session of the webmaster but the one it spares, on both instances, and no one else's", async () => {
    const owner = await createWebmasterFixture(first.provider.runtime);
    const bystander = await createWebmasterFixture(first.provider.runtime);
    const laptop = await signedInBrowser(first, owner);
    const phone = await signedInBrowser(second, owner);
    const tablet = await signedInBrowser(second, owner);
    const other = await signedInBrowser(second, bystander);

    const ended = await endSessions(first.provider.db, owner.id, { except: laptop.cookies.get('ap_platform')! });
    expect(ended).to.equal(2);
    expect(await reaches(phone, '/platform/account'), 'the phone on the other instance').to.equal(false);
    expect(await reaches(tablet, '/platform/account'), 'the tablet').to.equal(false);
    expect(await reaches(laptop, '/platform/account'), 'the session spared').to.equal(true);
    expect(await reaches(other, '/platform/account'), 'another webmaster').to.equal(true);

    expect(await endSessions(second.provider.db, owner.id)).to.equal(1);
    expect(await reaches(laptop, '/platform/account')).to.equal(false);
  });
});
