import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClientFixture, createWebmasterFixture } from '../helpers/fixtures.js';
import { MovableClock } from '../oauth2/helpers/clock.js';
import { apiClient } from '../external/api.js';
import type { WebhookMessage } from '../../lib/webhooks/inspection.js';
import { webhookMessageSchema } from '../../lib/webhooks/inspection-schemas.js';
import { LOCAL_RECEIVERS, recorded, register, setUp, verified } from './helpers.js';
import { startReceiver, startSilentReceiver, type Receiver } from './receiver.js';

/** A self-signed certificate made by openssl, not by anything the service uses. */
function selfSignedCertificate(): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-days',
      '1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
}

describe('webhooks: a webmaster inspects and redelivers messages', function () {
  // The app starts on a fresh database: slow on a shared machine.
  this.timeout(180_000);
  const clock = new MovableClock();
  let app: TestApp;
  let receiver: Receiver;
  let setup: Awaited<ReturnType<typeof setUp>>;
  before(async () => {
    // Long enough that a receiver answering at once is never timed out on a loaded CI machine (a 1 s limit was, once,
    // and the redelivered message stayed pending); the silent receiver's test waits this long once.
    app = await startTestApp({ clock, env: { ...LOCAL_RECEIVERS, WEBHOOK_TIMEOUT_MS: '5000' } });
    setup = await setUp(app);
  });
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.close());
  after(() => app.close());

  const documented = new Ajv2020({ strict: false }).compile(webhookMessageSchema);
  const websiteId = (): number => setup.client.websiteId;
  const messagePath = (webhookId: number, messageId: string): string =>
    `/website/${websiteId()}/webhooks/${webhookId}/messages/${messageId}`;
  const message = async (webhookId: number, messageId: string): Promise<WebhookMessage> => {
    const answer = await setup.api.get<WebhookMessage>(messagePath(webhookId, messageId));
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    expect(documented(answer.body), JSON.stringify(documented.errors)).to.equal(true);
    return answer.body;
  };
  /** The message once it holds `count` attempts. */
  const attempted = async (webhookId: number, messageId: string, count: number): Promise<WebhookMessage> => {
    for (;;) {
      const found = await message(webhookId, messageId);
      if (found.attempts.length >= count) return found;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const test = async (webhookId: number): Promise<void> => {
    expect((await setup.api.post(`/website/${websiteId()}/webhooks/${webhookId}/test`, {})).status).to.equal(200);
  };
  const redeliver = (webhookId: number, messageId: string) =>
    setup.api.post<{ queued: true }>(`${messagePath(webhookId, messageId)}/redeliver`, {});

  it("shows each attempt's body sent and the first KiB of the answer, and a later success", async () => {
    const hook = await register(setup.api, websiteId(), receiver.url);
    // A long answer with a NUL (PostgreSQL text cannot hold one) and a character cut by the KiB boundary.
    receiver.replyBody = Buffer.concat([Buffer.from('{"error":"db down\u0000"} '), Buffer.alloc(2000, 'é')]);
    receiver.answer = (index) => (index === 0 ? 503 : 200);
    await test(hook.id);
    const [first] = await receiver.waitFor(1);
    const messageId = String(first!.headers['webhook-id']);
    let found = await attempted(hook.id, messageId, 1);
    expect(found).to.include({ messageId, event: 'webhook.test', state: 'pending', givenUpReason: null });
    const [failed] = found.attempts;
    expect(failed).to.include({ attempt: 1, status: 503, responseTruncated: true });
    expect(failed!.error).to.match(/^HTTP 503: the receiver did not accept/);
    expect(failed!.requestBody).to.equal(first!.body);
    expect(failed!.responseBody!.startsWith('{"error":"db down\uFFFD"} éé')).to.equal(true);
    // The first KiB, the NUL as U+FFFD (two bytes more), the é cut at the boundary left out rather than garbled.
    expect(Buffer.byteLength(failed!.responseBody!)).to.equal(1024 - 1 + 2);
    expect(failed!.responseBody!.endsWith('é')).to.equal(true);
    expect(failed!.nextRetryAt).to.be.a('string');
    // The body the log shows is the one signed: the receiver's library verifies it with the headers it got.
    expect(verified(hook.secret, { headers: first!.headers, body: failed!.requestBody! }).type).to.equal(
      'webhook.test',
    );

    receiver.replyBody = 'thanks';
    clock.advance(10 * 60);
    found = await attempted(hook.id, messageId, 2);
    expect(found.state).to.equal('delivered');
    expect(found.attempts[1]).to.include({ attempt: 2, status: 200, error: null, responseBody: 'thanks' });
    expect(found.attempts[1]!.responseTruncated).to.equal(false);
    expect(found.attempts[1]!.requestBody).to.equal(found.attempts[0]!.requestBody);
    const [, second] = await receiver.waitFor(2);
    expect(second!.headers['webhook-id']).to.equal(messageId);
  });

  it('redelivers a delivered message with the same webhook-id, once for a double submit', async () => {
    const hook = await register(setup.api, websiteId(), receiver.url);
    await test(hook.id);
    const [first] = await receiver.waitFor(1);
    const messageId = String(first!.headers['webhook-id']);
    expect((await attempted(hook.id, messageId, 1)).state).to.equal('delivered');
    // The receiver holds each answer long enough that both submits land while the first redelivery is due or in flight.
    receiver.delayMs = 300;
    const submits = await Promise.all([redeliver(hook.id, messageId), redeliver(hook.id, messageId)]);
    expect(submits.map((answer) => [answer.status, answer.body])).to.deep.equal([
      [200, { queued: true }],
      [200, { queued: true }],
    ]);
    const [, again] = await receiver.waitFor(2);
    expect(again!.headers['webhook-id']).to.equal(messageId);
    expect(again!.body).to.equal(first!.body);
    expect(verified(hook.secret, again!).type).to.equal('webhook.test');
    const found = await attempted(hook.id, messageId, 2);
    expect(found.state).to.equal('delivered');
    expect(found.attempts.map((one) => one.status)).to.deep.equal([200, 200]);
    // Several poll intervals later, still one redelivery.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(receiver.received).to.have.length(2);
    expect((await message(hook.id, messageId)).attempts).to.have.length(2);
  });

  it('redelivers a message waiting for its retry at once, and a message given up', async () => {
    const hook = await register(setup.api, websiteId(), receiver.url);
    receiver.answer = (index) => (index === 0 ? 400 : 204);
    await test(hook.id);
    const [first] = await receiver.waitFor(1);
    const messageId = String(first!.headers['webhook-id']);
    const waiting = await attempted(hook.id, messageId, 1);
    expect(waiting.state).to.equal('pending');
    expect(Date.parse(waiting.attempts[0]!.nextRetryAt!)).to.be.greaterThan(clock.now().getTime());
    // The first retry is due 5 s later by a clock that runs: on a slow machine it went on its own before the
    // redelivery, which then sent the delivered message a third time. Pushed an hour ahead, as a later retry is.
    await app.provider
      .db('webhook_messages')
      .where('message_id', messageId)
      .update({ next_attempt_at: new Date(clock.now().getTime() + 3_600_000) });
    expect((await redeliver(hook.id, messageId)).status).to.equal(200);
    const [, second] = await receiver.waitFor(2);
    expect(second!.headers['webhook-id']).to.equal(messageId);
    const redelivered = await attempted(hook.id, messageId, 2);
    expect(redelivered.state, JSON.stringify(redelivered.attempts[1])).to.equal('delivered');

    await app.provider.db('webhook_messages').where('message_id', messageId).update({
      next_attempt_at: null,
      delivered_at: null,
      given_up_at: clock.now(),
      given_up_reason: 'backlog over 10000 messages',
    });
    expect((await message(hook.id, messageId)).state).to.equal('given_up');
    expect((await redeliver(hook.id, messageId)).status).to.equal(200);
    await receiver.waitFor(3);
    const found = await attempted(hook.id, messageId, 3);
    expect(found, JSON.stringify(found)).to.include({ state: 'delivered', givenUpReason: null });
  });

  it("ends the endpoint's back-off for a redelivery, and a message not found lifts nothing", async () => {
    const hook = await register(setup.api, websiteId(), receiver.url);
    await test(hook.id);
    const [first] = await receiver.waitFor(1);
    const messageId = String(first!.headers['webhook-id']);
    expect((await attempted(hook.id, messageId, 1)).state).to.equal('delivered');
    // As after failures: backed off for an hour by the service's clock.
    const backedOff = { backoff_until: new Date(clock.now().getTime() + 3_600_000), backoff_ms: 3_600_000 };
    await app.provider.db('webhooks').where('id', hook.id).update(backedOff);

    const missing = await setup.api.post(`${messagePath(hook.id, 'msg_' + '0'.repeat(32))}/redeliver`, {});
    expect(missing.status).to.equal(404);
    expect(
      await app.provider.db('webhooks').where('id', hook.id).first('backoff_until', 'backoff_ms'),
      'a refused redelivery changes nothing',
    ).to.deep.equal(backedOff);

    expect((await redeliver(hook.id, messageId)).status).to.equal(200);
    const [, again] = await receiver.waitFor(2);
    expect(again!.headers['webhook-id']).to.equal(messageId);
    const redelivered = await attempted(hook.id, messageId, 2);
    expect(redelivered.state, JSON.stringify(redelivered)).to.equal('delivered');
    // Delivered: the endpoint is healthy again, its back-off forgotten.
    expect(await app.provider.db('webhooks').where('id', hook.id).first('backoff_until', 'backoff_ms')).to.deep.equal({
      backoff_until: null,
      backoff_ms: null,
    });
  });

  it('describes failures in words that never name the address connected to', async () => {
    const closed = await startReceiver();
    await closed.close();
    const refused = await register(setup.api, websiteId(), closed.url);
    const silent = await startSilentReceiver();
    const hung = await register(setup.api, websiteId(), silent.url);
    const tls = createHttpsServer(selfSignedCertificate(), (_request, response) => response.end());
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    const tlsHook = await register(
      setup.api,
      websiteId(),
      `https://127.0.0.1:${(tls.address() as AddressInfo).port}/hooks`,
    );
    try {
      for (const hook of [refused, hung, tlsHook]) await test(hook.id);
      const errors = await Promise.all(
        [refused, hung, tlsHook].map(async (hook) => {
          const [attempt] = await recorded(setup.api, websiteId(), hook.id, 1);
          const found = await message(hook.id, attempt!.messageId);
          expect(found.attempts[0]).to.include({ status: null, responseBody: null });
          expect(found.attempts[0]!.requestBody).to.be.a('string');
          return found.attempts[0]!.error!;
        }),
      );
      expect(errors[0]).to.equal('the connection was refused');
      expect(errors[1]).to.equal('no answer within 5000 ms');
      expect(errors[2]).to.equal('TLS failed (DEPTH_ZERO_SELF_SIGNED_CERT)');
      for (const error of errors) expect(error).to.not.match(/127\.0\.0\.1|:\d{2,5}\b/);
    } finally {
      await silent.close();
      await new Promise((resolve) => (tls as Server).close(resolve));
    }
  });

  it("finds no other website's message, refuses malformed ids and a disabled endpoint's redelivery", async () => {
    const hook = await register(setup.api, websiteId(), receiver.url);
    await test(hook.id);
    const [first] = await receiver.waitFor(1);
    const messageId = String(first!.headers['webhook-id']);
    await attempted(hook.id, messageId, 1);

    // Another website of the same webmaster, with an endpoint of its own: the message is not found through it.
    const other = await createClientFixture(app.provider.runtime, setup.webmaster.id, { environment: 'TEST' });
    const otherHook = await register(setup.api, other.websiteId, receiver.url);
    const crossed = `/website/${other.websiteId}/webhooks/${otherHook.id}/messages/${messageId}`;
    expect((await setup.api.get(crossed)).status).to.equal(404);
    expect((await setup.api.post(`${crossed}/redeliver`, {})).status).to.equal(404);
    expect(
      (await setup.api.get(`/website/${websiteId()}/webhooks/${otherHook.id}/messages/${messageId}`)).status,
    ).to.equal(404);
    // Another webmaster: the website is not theirs.
    const stranger = await createWebmasterFixture(app.provider.runtime);
    const strangerApi = apiClient(app.url, stranger.apiToken);
    expect((await strangerApi.get(messagePath(hook.id, messageId))).status).to.equal(401);
    expect((await strangerApi.post(`${messagePath(hook.id, messageId)}/redeliver`, {})).status).to.equal(401);
    expect(receiver.received).to.have.length(1);
    for (const bad of ['msg_x', 'msg_' + 'A'.repeat(32), '1', `${messageId}0`]) {
      const answer = await setup.api.get<{ statusCode: number; error: string }>(messagePath(hook.id, bad));
      expect(answer.status, bad).to.equal(400);
      expect(answer.body).to.include({ statusCode: 400, error: 'Bad Request' });
    }

    await app.provider
      .db('webhooks')
      .where('id', hook.id)
      .update({ disabled_at: clock.now(), disabled_reason: 'test' });
    const refused = await redeliver(hook.id, messageId);
    expect(refused.status).to.equal(400);
    expect((refused.body as unknown as { message: string }).message).to.match(/disabled/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).to.have.length(1);
  });
});
