import { expect } from 'chai';
import nock from 'nock';
import { startTestApp, type TestApp } from '../../../helpers/app.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../../../helpers/fixtures.js';
import { onlyVendorsFaked, recordingLogger, restoreNetwork } from './helpers/vendors.js';
import { resourcesAfterPass, startChallenge } from './helpers/flow.js';

const created = (id: string, uid: string) => ({
  id,
  object: 'setup_intent',
  client_secret: `${id}_secret_abc`,
  status: 'requires_payment_method',
  usage: 'on_session',
  metadata: { interaction: uid },
});
const confirmed = (id: string, uid: string, funding: string, status = 'succeeded') => ({
  id,
  object: 'setup_intent',
  status,
  usage: 'on_session',
  client_secret: `${id}_secret_abc`,
  metadata: { interaction: uid },
  payment_method: {
    id: 'pm_1',
    object: 'payment_method',
    type: 'card',
    card: { brand: 'visa', funding, country: 'GB', last4: '4242', exp_month: 1, exp_year: 2031 },
  },
});

describe('credit_card challenge (LIVE, Stripe faked at its host)', () => {
  let app: TestApp;
  let live: ClientFixture;
  const log = recordingLogger();

  before(async () => {
    onlyVendorsFaked();
    app = await startTestApp({
      logger: log,
      env: { STRIPE_SECRET_KEY: 'sk_test_51abc', STRIPE_PUBLISHABLE_KEY: 'pk_test_51abc', VENDOR_TIMEOUT_MS: '500' },
    });
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    live = await createClientFixture(app.provider.runtime, webmaster.id, {
      environment: 'LIVE',
      challenges: ['credit_card', 'ticket'],
    });
  });
  afterEach(() => nock.cleanAll());
  after(async () => {
    restoreNetwork();
    await app.close();
  });

  /** Lands on the card page: our server created a SetupIntent bound to this interaction. */
  async function cardPage(id = 'seti_1Abc') {
    let uidSeen = '';
    nock('https://api.stripe.com')
      .post('/v1/setup_intents', (body: Record<string, string>) => {
        uidSeen = body['metadata[interaction]'] ?? '';
        return true;
      })
      .reply(200, () => created(id, uidSeen));
    const started = await startChallenge(app, live, 'credit_card');
    expect(uidSeen).to.equal(started.uid);
    return started;
  }

  it('loads Stripe.js under a CSP widened for Stripe only, with the publishable key and client secret, never the secret key', async () => {
    const { page, visitor } = await cardPage();
    expect(page.status).to.equal(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).to.contain("script-src 'self' https://js.stripe.com");
    expect(csp).to.contain('frame-src https://js.stripe.com https://hooks.stripe.com');
    expect(csp).to.contain("connect-src 'self' https://api.stripe.com");
    expect(visitor.html)
      .to.contain('https://js.stripe.com/v3/')
      .and.contain('/static/credit-card.js')
      .and.contain('data-publishable-key="pk_test_51abc"')
      .and.contain('data-client-secret="seti_1Abc_secret_abc"')
      .and.not.contain('sk_test_51abc');
  });

  it('passes an authenticated credit card read back from Stripe, and Resources says STANDARD', async () => {
    const { visitor, uid } = await cardPage();
    nock('https://api.stripe.com')
      .get('/v1/setup_intents/seti_1Abc')
      .query({ 'expand[]': 'payment_method' })
      .reply(200, confirmed('seti_1Abc', uid, 'credit'));
    const response = await visitor.request(`/v1/oauth2/interaction/${uid}/challenge/credit_card/check`, {
      body: { setup_intent: 'seti_1Abc' },
    });
    expect(response.headers.get('location')).to.match(/\/result$/);
    await visitor.follow(response);
    expect(await resourcesAfterPass(app, live, visitor, uid)).to.include({
      verified: true,
      assurance_level: 'STANDARD',
    });
    expect(await app.provider.db('verifications').select('method')).to.deep.include({ method: 'credit_card' });
  });

  it("refuses debit and prepaid cards, fails an unfinished check or another interaction's, and records nothing", async () => {
    const count = async () => (await app.provider.db('verifications').where('method', 'credit_card')).length;
    const before = await count();
    for (const [make, notice] of [
      [(uid: string) => confirmed('seti_1Abc', uid, 'debit'), 'refused'],
      [(uid: string) => confirmed('seti_1Abc', uid, 'prepaid'), 'refused'],
      [(uid: string) => confirmed('seti_1Abc', uid, 'credit', 'requires_action'), 'failed'],
      [() => confirmed('seti_1Abc', 'someone-elses-interaction', 'credit'), 'failed'],
    ] as const) {
      const { visitor, uid } = await cardPage();
      nock('https://api.stripe.com').get('/v1/setup_intents/seti_1Abc').query(true).reply(200, make(uid));
      const response = await visitor.request(`/v1/oauth2/interaction/${uid}/challenge/credit_card/check`, {
        body: { setup_intent: 'seti_1Abc' },
      });
      expect(response.headers.get('location')).to.match(new RegExp(`/choose\\?notice=${notice}$`));
    }
    expect(await count()).to.equal(before);
  });

  it('goes back to the choice with "unavailable" when Stripe is down', async () => {
    nock('https://api.stripe.com').post('/v1/setup_intents').times(3).reply(503);
    const { page } = await startChallenge(app, live, 'credit_card');
    expect(page.status).to.equal(200);
    expect(page.url.href).to.match(/\/choose\?notice=unavailable$/);
  });

  it('never logs a Stripe identifier or key', () => {
    const logged = log.lines.join('\n');
    expect(logged).to.contain('read-setup-intent');
    expect(logged).not.to.match(/seti_|pm_1|sk_test/);
  });

  it('runs the sandbox, never Stripe, for a TEST client', async () => {
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    const test = await createClientFixture(app.provider.runtime, webmaster.id, {
      environment: 'TEST',
      challenges: ['credit_card', 'ticket'],
    });
    const call = nock('https://api.stripe.com').post('/v1/setup_intents').reply(200, created('seti_x', 'x'));
    const { visitor, page } = await startChallenge(app, test, 'credit_card');
    expect(page.headers.get('content-security-policy') ?? '').not.to.contain('stripe');
    expect(visitor.html).not.to.contain('js.stripe.com');
    expect(call.isDone()).to.equal(false);
  });
});
