import { expect } from 'chai';
import nock from 'nock';
import { judge } from '../../lib/verification/challenges/selfie/challenge.js';
import type { SelfieSettings } from '../../lib/verification/challenges/selfie/settings.js';
import { updateWebsitePolicy } from '../../lib/websites/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Browser, csrfOf, linksWithClass, locationOf, type Page } from '../helpers/browser.js';
import { createClientFixture, createWebmasterFixture, TEST_ORIGIN, type ClientFixture } from '../helpers/fixtures.js';
import { accept, expectPage } from '../helpers/visitor.js';
import { authorizationUrl } from '../helpers/relying-party.js';
import {
  fakeJpeg,
  onlyVendorsFaked,
  restoreNetwork,
  YOTI_SDK_ID,
  yotiKeyPair,
} from '../verification/challenges/vendors/helpers/vendors.js';

// The policy's estimation buffer on the LIVE selfie (Yoti faked at its host): an estimate over the age but within the
// buffer does not pass, and the visitor is offered the methods that verify instead.

const yoti = () => nock('https://api.yoti.com').post(/^\/ai\/v1\/age-antispoofing\?/);
const estimate = (age: number) => ({ antispoofing: { prediction: 'real' }, age: { age, st_dev: 2 } });
const offered = (page: Page): string[] => [...page.html.matchAll(/id="challenge-(\w+)"/g)].map((match) => match[1]!);

describe('policy: the estimation buffer', () => {
  let app: TestApp;
  let client: ClientFixture;

  before(async () => {
    onlyVendorsFaked();
    const { keyFile } = yotiKeyPair();
    app = await startTestApp({
      env: {
        SELFIE_YOTI_SDK_ID: YOTI_SDK_ID,
        SELFIE_YOTI_KEY_FILE: keyFile,
        VENDOR_TIMEOUT_MS: '500',
        TRUST_PROXY: 'true',
        GEO_COUNTRY_HEADER: 'CF-IPCountry',
      },
    });
    const { runtime } = app.provider;
    const webmaster = await createWebmasterFixture(runtime);
    client = await createClientFixture(runtime, webmaster.id, {
      environment: 'LIVE',
      challenges: ['selfie', 'ticket'],
    });
    // The operator's SELFIE_AGE_BUFFER is 7 by default; the website asks 10 in GB.
    await updateWebsitePolicy(
      runtime,
      webmaster.id,
      client.websiteId,
      { rules: [{ regions: ['GB'], estimationBuffer: 10 }] },
      TEST_ORIGIN,
    );
  });
  afterEach(() => nock.cleanAll());
  after(async () => {
    restoreNetwork();
    await app.close();
  });

  async function selfieFrom(country: string): Promise<{ browser: Browser; page: Page; uid: string }> {
    const browser = new Browser(app.url, { headers: { 'CF-IPCountry': country, 'accept-language': 'en' } });
    const choice = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));
    const start = linksWithClass(choice, 'button').find((url) => url.pathname.includes('/challenge/selfie/'))!;
    const uid = /\/interaction\/([^/]+)\//.exec(start.pathname)![1]!;
    return { browser, page: await browser.open(start), uid };
  }

  async function capture(browser: Browser, uid: string, page: Page): Promise<Response> {
    const form = new FormData();
    form.set('consent', 'yes');
    form.set('image', new Blob([fakeJpeg()], { type: 'image/jpeg' }), 'selfie.jpg');
    return browser.request(`/v1/oauth2/interaction/${uid}/challenge/selfie/capture`, {
      body: form,
      csrf: csrfOf(page),
    });
  }

  it('asks for threshold + the larger buffer on the selfie page', async () => {
    expect((await selfieFrom('GB')).page.html).to.contain('at least 28 years old');
    expect((await selfieFrom('FR')).page.html).to.contain('at least 25 years old');
  });

  it('offers only the methods that verify after an estimate within the buffer, telling the visitor why', async () => {
    const { browser, page, uid } = await selfieFrom('GB');
    yoti().reply(200, estimate(26.5));
    const response = await capture(browser, uid, page);
    expect(response.status).to.equal(303);
    const choice = expectPage(await browser.open(locationOf(response)));
    expect(choice.url.searchParams.get('notice')).to.equal('estimate_too_close');
    expect(choice.html).to.contain('Your estimated age is too close to the age limit');
    expect(offered(choice)).to.deep.equal(['ticket']);
    const [recorded] = await app.provider
      .db('verifications')
      .where('website_id', client.websiteId)
      .count<Array<{ count: string | number }>>('* as count');
    expect(Number(recorded!.count)).to.equal(0);
  });

  it('passes an estimate beyond the buffer, and the same estimate where no policy buffer applies', async () => {
    for (const [country, age] of [
      ['GB', 28.5],
      ['FR', 26.5],
    ] as const) {
      const { browser, page, uid } = await selfieFrom(country);
      yoti().reply(200, estimate(age));
      const response = await capture(browser, uid, page);
      expect(locationOf(response).pathname, country).to.match(/\/result$/);
    }
  });
});

describe('policy: the selfie verdict with a policy buffer', () => {
  const settings = { ageBuffer: 7, maxStDev: 5 } as SelfieSettings;
  const face = (age: number) => ({ kind: 'estimate', liveness: 'real', age, stDev: 1 }) as const;

  it("is too-close only where the policy's buffer, not the operator's, decided", () => {
    expect(judge(face(24.9), 18, settings, 10)).to.equal('under-age');
    expect(judge(face(25), 18, settings, 10)).to.equal('too-close');
    expect(judge(face(27.9), 18, settings, 10)).to.equal('too-close');
    expect(judge(face(28), 18, settings, 10)).to.equal('pass');
    expect(judge(face(25), 18, settings, 3)).to.equal('pass');
  });
});
