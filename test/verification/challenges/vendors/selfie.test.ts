import { expect } from 'chai';
import nock from 'nock';
import { startTestApp, type TestApp } from '../../../helpers/app.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../../../helpers/fixtures.js';
import {
  fakeJpeg,
  onlyVendorsFaked,
  recordingLogger,
  restoreNetwork,
  YOTI_SDK_ID,
  yotiKeyPair,
} from './helpers/vendors.js';
import { resourcesAfterPass, startChallenge } from './helpers/flow.js';
import type { Browser } from '../../../helpers/browser.js';

const yoti = () => nock('https://api.yoti.com').post(/^\/ai\/v1\/age-antispoofing\?/);
const estimate = (age: number, prediction = 'real', stDev = 2) => ({
  antispoofing: { prediction },
  age: { age, st_dev: stDev },
});

describe('selfie challenge (LIVE, Yoti faked at its host)', () => {
  let app: TestApp;
  let live: ClientFixture;
  const log = recordingLogger();
  const image = fakeJpeg();

  before(async () => {
    onlyVendorsFaked();
    const { keyFile } = yotiKeyPair();
    app = await startTestApp({
      logger: log,
      env: { SELFIE_YOTI_SDK_ID: YOTI_SDK_ID, SELFIE_YOTI_KEY_FILE: keyFile, VENDOR_TIMEOUT_MS: '500' },
    });
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    live = await createClientFixture(app.provider.runtime, webmaster.id, {
      environment: 'LIVE',
      challenges: ['selfie', 'ticket'],
    });
  });
  afterEach(() => nock.cleanAll());
  after(async () => {
    restoreNetwork();
    await app.close();
  });

  const verifications = () => app.provider.db('verifications').select('method', 'assurance_level', 'environment');

  /** Posts the capture form as a browser does without JavaScript: multipart, with the photo as a file. */
  async function capture(
    visitor: Browser,
    uid: string,
    fields: Record<string, string> = { consent: 'yes' },
    bytes: Buffer | null = image,
    csrf?: string,
  ): Promise<Response> {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    if (bytes) form.set('image', new Blob([bytes], { type: 'image/jpeg' }), 'selfie.jpg');
    return visitor.request(`/v1/oauth2/interaction/${uid}/challenge/selfie/capture`, {
      body: form,
      ...(csrf ? { csrf } : {}),
    });
  }

  it('logs at start-up that the selfie challenge is active', () => {
    expect(
      log.lines.some(
        (line) =>
          line.includes('"challenge active"') && line.includes('"challenge":"selfie"') && line.includes('"ENHANCED"'),
      ),
    ).to.equal(true);
  });

  it('shows the consent page with our own script, a file field that works without JavaScript and a way back', async () => {
    const { page, visitor } = await startChallenge(app, live, 'selfie');
    expect(page.status).to.equal(200);
    expect(visitor.html)
      .to.contain('Verify your age with a selfie')
      .and.contain('name="consent"')
      .and.contain('type="file"')
      .and.contain('src="/static/selfie.js"')
      .and.contain('Yoti')
      .and.contain('at least 25 years old');
    expect(page.headers.get('content-security-policy'))
      .to.contain("script-src 'self'")
      .and.not.contain('unsafe-inline');
    // the request named only the selfie: the way back is cancelling, not another method
    expect(visitor.html)
      .to.match(/action="[^"]*\/cancel"/)
      .and.not.match(/href="[^"]*\/choose"/);
  });

  it('passes a live face estimated at threshold + 7 or more, posted as a plain multipart form, and Resources says ENHANCED', async () => {
    const { visitor, uid } = await startChallenge(app, live, 'selfie');
    const call = yoti().reply(200, estimate(31.2));
    const response = await capture(visitor, uid);
    expect(call.isDone()).to.equal(true);
    expect(response.status).to.equal(303);
    expect(response.headers.get('location')).to.match(/\/result$/);
    await visitor.follow(response);
    const resources = await resourcesAfterPass(app, live, visitor, uid);
    expect(resources).to.include({ verified: true, assurance_level: 'ENHANCED', age_threshold: 18 });
    expect(await verifications()).to.deep.include({
      method: 'selfie',
      assurance_level: 'ENHANCED',
      environment: 'LIVE',
    });
  });

  it('refuses an estimate under threshold + buffer, a spoof, and records nothing; the visitor may choose again', async () => {
    const before = (await verifications()).length;
    for (const answer of [estimate(24.9), estimate(40, 'fake')]) {
      const { visitor, uid } = await startChallenge(app, live, 'selfie');
      yoti().reply(200, answer);
      const response = await capture(visitor, uid);
      expect(response.status).to.equal(303);
      expect(response.headers.get('location')).to.match(/\/choose\?notice=refused$/);
      const choice = await visitor.follow(response);
      expect(choice.status).to.equal(200);
    }
    expect((await verifications()).length).to.equal(before);
  });

  it('asks for another photo when the vendor cannot use it or is unsure, without ending the challenge', async () => {
    const { visitor, uid } = await startChallenge(app, live, 'selfie');
    yoti().reply(400, { error_code: 'FACE_NOT_FOUND' });
    const unusable = await capture(visitor, uid);
    expect(unusable.status).to.equal(422);
    expect(visitor.html).to.contain('Take another one');
    yoti().reply(200, estimate(30, 'undetermined'));
    expect((await capture(visitor, uid)).status).to.equal(422);
    yoti().reply(200, estimate(30, 'real', 9));
    expect((await capture(visitor, uid)).status).to.equal(422);
    yoti().reply(200, estimate(30));
    expect((await capture(visitor, uid)).status).to.equal(303);
  });

  it('sends the visitor back to the choice with "unavailable" when Yoti is down or slow', async () => {
    for (const fault of [() => yoti().reply(503), () => yoti().delay(3000).reply(200, estimate(30))]) {
      const { visitor, uid } = await startChallenge(app, live, 'selfie');
      fault();
      const response = await capture(visitor, uid);
      expect(response.status).to.equal(303);
      expect(response.headers.get('location')).to.match(/\/choose\?notice=unavailable$/);
    }
  });

  it('refuses a form without consent, without an image, or without the form token, and never calls Yoti then', async () => {
    const call = yoti().reply(200, estimate(30));
    const { visitor, uid } = await startChallenge(app, live, 'selfie');
    expect((await capture(visitor, uid, {})).status).to.equal(400);
    expect(visitor.html).to.contain('tick the box');
    expect((await capture(visitor, uid, { consent: 'yes' }, null)).status).to.equal(400);
    expect((await capture(visitor, uid, { consent: 'yes' }, Buffer.from('GIF89a not a photo'))).status).to.equal(400);
    const forged = await capture(visitor, uid, { consent: 'yes' }, image, 'forged-token');
    expect(forged.status).to.equal(403);
    expect(call.isDone()).to.equal(false);
  });

  it('refuses an image over the size limit with 413 before calling Yoti', async () => {
    const call = yoti().reply(200, estimate(30));
    const { visitor, uid } = await startChallenge(app, live, 'selfie');
    expect((await capture(visitor, uid, { consent: 'yes' }, fakeJpeg(1_600_000))).status).to.equal(413);
    expect(call.isDone()).to.equal(false);
  });

  it('never writes the image or the estimate to the logs', () => {
    const logged = log.lines.join('\n');
    expect(logged).not.to.contain(image.toString('base64').slice(0, 40));
    expect(logged).not.to.contain('31.2');
  });

  it('stops an authorization after 5 refused selfies with 429, before calling Yoti again', async () => {
    const { visitor, uid } = await startChallenge(app, live, 'selfie');
    for (let attempt = 1; attempt <= 5; attempt++) {
      yoti().reply(200, estimate(20));
      const refused = await capture(visitor, uid);
      expect(refused.headers.get('location'), `attempt ${attempt}`).to.match(/\/choose\?notice=refused$/);
    }
    const call = yoti().reply(200, estimate(30));
    const blocked = await capture(visitor, uid);
    expect(blocked.status).to.equal(429);
    expect(blocked.headers.get('retry-after')).to.match(/^\d+$/);
    expect(call.isDone()).to.equal(false);
  });

  it('runs the sandbox, never Yoti, for a TEST client', async () => {
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    const test = await createClientFixture(app.provider.runtime, webmaster.id, {
      environment: 'TEST',
      challenges: ['selfie', 'ticket'],
    });
    const call = yoti().reply(200, estimate(30));
    const { page, visitor } = await startChallenge(app, test, 'selfie');
    expect(page.status).to.equal(200);
    expect(visitor.html).not.to.contain('id="selfie-form"');
    expect(call.isDone()).to.equal(false);
  });
});
