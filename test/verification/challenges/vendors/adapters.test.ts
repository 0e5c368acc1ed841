import { expect } from 'chai';
import nock from 'nock';
import { VendorUnavailableError } from '../../../../lib/verification/challenges/vendors/http.js';
import { yotiFaceAgeEstimator } from '../../../../lib/verification/challenges/selfie/yoti.js';
import { yotiEmailAgeEstimator } from '../../../../lib/verification/challenges/email-age/yoti.js';
import { stripeCardProcessor, STRIPE_VERSION } from '../../../../lib/verification/challenges/credit-card/stripe.js';
import {
  fakeJpeg,
  onlyVendorsFaked,
  recordingLogger,
  restoreNetwork,
  YOTI_SDK_ID,
  yotiKeyPair,
  yotiSignatureValid,
} from './helpers/vendors.js';

const TIMEOUT_MS = 300;

async function unavailable(promise: Promise<unknown>): Promise<void> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(VendorUnavailableError);
    return;
  }
  expect.fail('expected the vendor to be unavailable');
}

describe("vendor adapters against the vendors' documented requests and answers", () => {
  before(onlyVendorsFaked);
  afterEach(() => nock.cleanAll());
  after(restoreNetwork);

  describe('Yoti age estimation with anti-spoofing (selfie)', () => {
    const { keyFile, publicKey } = yotiKeyPair();
    const log = recordingLogger();
    const estimator = yotiFaceAgeEstimator(
      { sdkId: YOTI_SDK_ID, keyFile, keyFileEnv: 'SELFIE_YOTI_KEY_FILE' },
      { timeoutMs: TIMEOUT_MS, log },
    );
    const image = fakeJpeg();

    it('sends one signed request with the base64 image and reads age, st_dev and the anti-spoofing prediction', async () => {
      let seen: { path: string; body: string; headers: Record<string, string | string[]> } | undefined;
      nock('https://api.yoti.com')
        .post(/^\/ai\/v1\/age-antispoofing\?nonce=[0-9a-f-]{36}&timestamp=\d+$/)
        .reply(function (path, body) {
          seen = { path, body: JSON.stringify(body), headers: this.req.headers };
          return [200, { antispoofing: { prediction: 'real' }, age: { age: 31.4, st_dev: 2.1 } }];
        });
      const estimate = await estimator.estimate(image);
      expect(estimate).to.deep.equal({ kind: 'estimate', age: 31.4, stDev: 2.1, liveness: 'real' });
      expect(seen?.headers['x-yoti-auth-id']).to.equal(YOTI_SDK_ID);
      expect(JSON.parse(seen!.body)).to.deep.equal({ img: image.toString('base64') });
      expect(
        yotiSignatureValid(publicKey, 'POST', seen!.path, seen!.body, String(seen!.headers['x-yoti-auth-digest'])),
      ).to.equal(true);
    });

    it('reports a spoof and an undetermined liveness as the vendor says them', async () => {
      nock('https://api.yoti.com')
        .post(/age-antispoofing/)
        .reply(200, { antispoofing: { prediction: 'fake' }, age: { age: 40, st_dev: 1.5 } });
      expect(await estimator.estimate(image)).to.include({ liveness: 'fake', age: 40 });
      nock('https://api.yoti.com')
        .post(/age-antispoofing/)
        .reply(200, { antispoofing: { prediction: 'undetermined' }, age: { age: 40, st_dev: 1.5 } });
      expect(await estimator.estimate(image)).to.include({ liveness: 'undetermined' });
    });

    it('treats a documented 400 (FACE_NOT_FOUND) as an unusable image', async () => {
      nock('https://api.yoti.com')
        .post(/age-antispoofing/)
        .reply(400, { error_code: 'FACE_NOT_FOUND', error_message: 'Face not found.' });
      expect(await estimator.estimate(image)).to.deep.equal({ kind: 'unusable', code: 'FACE_NOT_FOUND' });
    });

    it('is unavailable on 5xx (without retrying a billed call), on a timeout, on a refused key and on a malformed answer', async () => {
      const scope = nock('https://api.yoti.com')
        .post(/age-antispoofing/)
        .reply(503, { error_code: 'SERVICE_UNAVAILABLE' });
      await unavailable(estimator.estimate(image));
      expect(scope.isDone()).to.equal(true);
      nock('https://api.yoti.com')
        .post(/age-antispoofing/)
        .delay(TIMEOUT_MS * 5)
        .reply(200, { antispoofing: { prediction: 'real' }, age: { age: 30, st_dev: 1 } });
      await unavailable(estimator.estimate(image));
      nock('https://api.yoti.com')
        .post(/age-antispoofing/)
        .reply(401, { error_code: 'INVALID_SIGNATURE' });
      await unavailable(estimator.estimate(image));
      nock('https://api.yoti.com')
        .post(/age-antispoofing/)
        .reply(200, { age: { age: 'thirty' } });
      await unavailable(estimator.estimate(image));
      nock('https://api.yoti.com')
        .post(/age-antispoofing/)
        .reply(200, '<html>gateway</html>');
      await unavailable(estimator.estimate(image));
    });

    it('never logs the image', () => {
      expect(log.lines.join('\n')).not.to.contain(image.toString('base64').slice(0, 40));
    });
  });

  describe('Yoti email address check (email_age)', () => {
    const estimator = yotiEmailAgeEstimator(
      { apiKey: 'yoti-api-key-123', sdkId: YOTI_SDK_ID },
      { timeoutMs: TIMEOUT_MS, log: recordingLogger() },
    );
    const documented = (status: string, result: boolean) => ({
      evidence_id: '0f8b2c4e-6a1d-4e3f-9b7c-2d5e8f1a3b6c',
      method: 'EMAIL',
      created_at: '2026-11-21T04:00:00Z',
      attempts: 1,
      status,
      result,
      age: 18,
      type: 'OVER',
    });

    it('posts the verified address with the documented body and headers; COMPLETE + true is over 18', async () => {
      nock('https://age.yoti.com', {
        reqheaders: {
          authorization: 'Bearer yoti-api-key-123',
          'yoti-sdk-id': YOTI_SDK_ID,
          'content-type': 'application/json',
        },
      })
        .post('/api/v2/non-interactive', {
          type: 'OVER',
          threshold: 18,
          evidence: { email: { address: 'ada@example.org' }, country: 'GB' },
        })
        .reply(200, documented('COMPLETE', true));
      expect(await estimator.check({ address: 'ada@example.org', country: 'GB' })).to.equal('over');
    });

    it('FAIL is not over 18; INSUFFICIENT_DATA, ERROR and a filtered address prove nothing', async () => {
      nock('https://age.yoti.com').post('/api/v2/non-interactive').reply(200, documented('FAIL', false));
      expect(await estimator.check({ address: 'kid@example.org', country: 'GB' })).to.equal('not-over');
      nock('https://age.yoti.com').post('/api/v2/non-interactive').reply(200, documented('INSUFFICIENT_DATA', false));
      expect(await estimator.check({ address: 'new@example.org', country: 'GB' })).to.equal('unknown');
      nock('https://age.yoti.com').post('/api/v2/non-interactive').reply(200, documented('ERROR', false));
      expect(await estimator.check({ address: 'odd@example.org', country: 'GB' })).to.equal('unknown');
      nock('https://age.yoti.com').post('/api/v2/non-interactive').reply(400, { error: 'bad email' });
      expect(await estimator.check({ address: 'odd@example.org', country: 'GB' })).to.equal('unknown');
    });

    it('is unavailable on 5xx, on a timeout, on a refused key and on a malformed answer', async () => {
      nock('https://age.yoti.com').post('/api/v2/non-interactive').reply(502);
      await unavailable(estimator.check({ address: 'a@example.org', country: 'GB' }));
      nock('https://age.yoti.com')
        .post('/api/v2/non-interactive')
        .delay(TIMEOUT_MS * 5)
        .reply(200, documented('COMPLETE', true));
      await unavailable(estimator.check({ address: 'a@example.org', country: 'GB' }));
      nock('https://age.yoti.com').post('/api/v2/non-interactive').reply(401, { message: 'unauthorised' });
      await unavailable(estimator.check({ address: 'a@example.org', country: 'GB' }));
      nock('https://age.yoti.com').post('/api/v2/non-interactive').reply(200, { status: 'MAYBE', result: 'yes' });
      await unavailable(estimator.check({ address: 'a@example.org', country: 'GB' }));
    });
  });

  describe('Stripe SetupIntent (credit_card)', () => {
    const processor = stripeCardProcessor(
      { secretKey: 'sk_test_abc123', publishableKey: 'pk_test_abc123' },
      { timeoutMs: TIMEOUT_MS, log: recordingLogger() },
    );
    const intent = (status: string, funding: string | null, interaction = 'uid-1') => ({
      id: 'seti_1Abc',
      object: 'setup_intent',
      status,
      usage: 'on_session',
      client_secret: 'seti_1Abc_secret_xyz',
      metadata: { interaction },
      payment_method:
        funding === null
          ? null
          : {
              id: 'pm_1Xyz',
              object: 'payment_method',
              type: 'card',
              card: { brand: 'visa', country: 'GB', funding, last4: '4242', exp_month: 12, exp_year: 2030 },
            },
    });

    it('creates a SetupIntent form-encoded, with an idempotency key, 3-D Secure requested and only the uid as metadata', async () => {
      let headers: Record<string, string | string[]> = {};
      nock('https://api.stripe.com')
        .post('/v1/setup_intents', (body: Record<string, unknown>) => {
          expect(body).to.deep.equal({
            usage: 'on_session',
            'payment_method_types[]': 'card',
            'payment_method_options[card][request_three_d_secure]': 'any',
            'metadata[interaction]': 'uid-1',
          });
          return true;
        })
        .reply(function () {
          headers = this.req.headers;
          return [
            200,
            {
              id: 'seti_1Abc',
              object: 'setup_intent',
              client_secret: 'seti_1Abc_secret_xyz',
              status: 'requires_payment_method',
              metadata: { interaction: 'uid-1' },
            },
          ];
        });
      expect(await processor.begin('uid-1')).to.deep.equal({ id: 'seti_1Abc', clientSecret: 'seti_1Abc_secret_xyz' });
      expect(headers['authorization']).to.equal('Bearer sk_test_abc123');
      expect(headers['stripe-version']).to.equal(STRIPE_VERSION);
      expect(headers['content-type']).to.equal('application/x-www-form-urlencoded');
      expect(String(headers['idempotency-key'])).to.match(/^[0-9a-f-]{36}$/);
    });

    it('retries a create after a 5xx with the same idempotency key', async () => {
      const keys: string[] = [];
      nock('https://api.stripe.com')
        .post('/v1/setup_intents')
        .times(2)
        .reply(function () {
          keys.push(String(this.req.headers['idempotency-key']));
          return keys.length === 1
            ? [500, { error: { type: 'api_error' } }]
            : [200, { id: 'seti_2', client_secret: 'seti_2_secret_q' }];
        });
      expect(await processor.begin('uid-1')).to.deep.equal({ id: 'seti_2', clientSecret: 'seti_2_secret_q' });
      expect(keys).to.have.length(2);
      expect(keys[0]).to.equal(keys[1]);
    });

    it('passes only a succeeded SetupIntent of this interaction with a credit card', async () => {
      const read = () =>
        nock('https://api.stripe.com').get('/v1/setup_intents/seti_1Abc').query({ 'expand[]': 'payment_method' });
      read().reply(200, intent('succeeded', 'credit'));
      expect(await processor.result('seti_1Abc', 'uid-1')).to.equal('credit');
      for (const funding of ['debit', 'prepaid', 'unknown']) {
        read().reply(200, intent('succeeded', funding));
        expect(await processor.result('seti_1Abc', 'uid-1')).to.equal('not-credit');
      }
      read().reply(200, intent('requires_action', 'credit'));
      expect(await processor.result('seti_1Abc', 'uid-1')).to.equal('incomplete');
      read().reply(200, intent('requires_payment_method', null));
      expect(await processor.result('seti_1Abc', 'uid-1')).to.equal('incomplete');
      read().reply(200, intent('succeeded', 'credit', 'another-uid'));
      expect(await processor.result('seti_1Abc', 'uid-1')).to.equal('incomplete');
      read().reply(404, { error: { type: 'invalid_request_error', code: 'resource_missing' } });
      expect(await processor.result('seti_1Abc', 'uid-1')).to.equal('incomplete');
    });

    it('is unavailable after bounded retries of 5xx, on a timeout, on a refused key and on a malformed answer', async () => {
      const scope = nock('https://api.stripe.com').get('/v1/setup_intents/seti_1Abc').query(true).times(3).reply(503);
      await unavailable(processor.result('seti_1Abc', 'uid-1'));
      expect(scope.isDone()).to.equal(true);
      nock('https://api.stripe.com')
        .get('/v1/setup_intents/seti_1Abc')
        .query(true)
        .times(3)
        .delay(TIMEOUT_MS * 5)
        .reply(200, intent('succeeded', 'credit'));
      await unavailable(processor.result('seti_1Abc', 'uid-1'));
      nock('https://api.stripe.com')
        .post('/v1/setup_intents')
        .reply(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
      await unavailable(processor.begin('uid-1'));
      nock('https://api.stripe.com').get('/v1/setup_intents/seti_1Abc').query(true).reply(200, { id: 'seti_1Abc' });
      await unavailable(processor.result('seti_1Abc', 'uid-1'));
    });
  });
});
