import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createWebmasterFixture, TEST_ORIGIN } from '../helpers/fixtures.js';
import { apiClient, snapshot } from '../external/api.js';
import { issueApiToken } from '../../lib/webmasters/api-tokens.js';
import { resolveDestination, RefusedDestination, UNREACHABLE_HOST } from '../../lib/webhooks/destination.js';
import { send } from '../../lib/webhooks/sender.js';
import { LOCAL_RECEIVERS, recorded, register, setUp } from './helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

const refusal = async (promise: Promise<unknown>): Promise<string> => {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(RefusedDestination);
    return (error as Error).message;
  }
  throw new Error('not refused');
};

describe('webhooks: where deliveries may go', () => {
  let database: TestDatabase;
  let receiver: Receiver;
  let strict: TestApp;
  before(async () => {
    database = await createTestDatabase();
    receiver = await startReceiver();
    strict = await startTestApp({ env: {} }, { shared: database });
  });
  after(async () => {
    await strict.close();
    await receiver.close();
    await database.drop();
  });

  it('refuses to register http, private, loopback and link-local URLs, and malformed bodies, changing nothing', async () => {
    const { client, api } = await setUp(strict);
    const before = JSON.stringify(await database.db('webhooks').select());
    const cases: Array<[unknown, RegExp]> = [
      [{ url: 'http://hooks.example.com/in', events: ['verification.completed'] }, /https/],
      [{ url: 'https://127.0.0.1/in', events: ['verification.completed'] }, /private, loopback or link-local/],
      [{ url: 'https://localhost:8443/in', events: ['verification.completed'] }, /private, loopback or link-local/],
      [{ url: 'https://[::1]/in', events: ['verification.completed'] }, /private, loopback or link-local/],
      [
        { url: 'https://169.254.169.254/latest/meta-data', events: ['verification.completed'] },
        /private, loopback or link-local/,
      ],
      [{ url: 'https://10.1.2.3/in', events: ['verification.completed'] }, /private, loopback or link-local/],
      [{ url: 'https://user:pw@hooks.example.com/in', events: ['verification.completed'] }, /user name/],
      [{ url: 'not a url', events: ['verification.completed'] }, /absolute URL/],
      [{ url: 'https://hooks.example.com/in', events: [] }, /events/],
      [{ url: 'https://hooks.example.com/in', events: ['verification.started'] }, /events/],
      [{ url: 'https://hooks.example.com/in', events: ['webhook.test'] }, /events/],
      [{ url: 'https://hooks.example.com/in' }, /events/],
      [{ url: 'https://hooks.example.com/in', events: ['verification.completed'], secret: 'whsec_mine' }, /secret/],
    ];
    for (const [body, message] of cases) {
      const answer = await api.post<{ message: string; error: string; statusCode: number }>(
        `/website/${client.websiteId}/webhooks`,
        body,
      );
      expect(answer.status, JSON.stringify(body)).to.equal(400);
      expect(answer.body.error).to.equal('Bad Request');
      expect(answer.body.message, JSON.stringify(body)).to.match(message);
    }
    expect(JSON.stringify(await database.db('webhooks').select())).to.equal(before);
  });

  it('checks the address again at every delivery: an endpoint registered while allowed is refused once the operator forbids it', async () => {
    const permissive = await startTestApp(
      { env: { ...LOCAL_RECEIVERS, WEBHOOK_POLL_INTERVAL_MS: '3600000' } },
      { shared: database },
    );
    let websiteId: number;
    let hookId: number;
    try {
      const { client, api } = await setUp(permissive);
      websiteId = client.websiteId;
      hookId = (await register(api, websiteId, receiver.url, ['website.updated'])).id;
      expect((await api.patch(`/website/${websiteId}`, { name: 'Renamed' })).status).to.equal(200);
    } finally {
      await permissive.close();
    }
    // The strict instance (no WEBHOOK_ALLOW_PRIVATE_ADDRESSES) works the same outbox.
    const owner = await database.db('websites').where('id', websiteId).first<{ webmaster_id: number }>('webmaster_id');
    const token = await issueApiToken(database.db, strict.provider.runtime.clock, owner!.webmaster_id, TEST_ORIGIN);
    const [attempt] = await recorded(apiClient(strict.url, token), websiteId, hookId, 1);
    expect(attempt!.status).to.equal(null);
    expect(attempt!.error).to.match(/https/);
    expect(attempt!.nextRetryAt).to.not.equal(null);
    expect(receiver.received).to.have.length(0);
  });

  it('refuses a host that resolves to a private address in the words of one that does not resolve, and connects to the address it checked', async () => {
    const resolving =
      (...addresses: string[]) =>
      async () =>
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    const refusals = await Promise.all(
      [resolving('10.0.0.7'), resolving('93.184.215.14', '127.0.0.1'), resolving('fe80::1'), resolving()].map(
        (resolve) => refusal(resolveDestination('https://hooks.example.com/in', false, resolve)),
      ),
    );
    // Nothing tells a private address from a name that does not exist: the log maps nothing of the operator's network.
    expect(refusals).to.deep.equal(Array(4).fill(UNREACHABLE_HOST));
    expect(UNREACHABLE_HOST).to.not.include('hooks.example.com');
    expect(await resolveDestination('https://hooks.example.com/in', false, resolving('93.184.215.14'))).to.deep.include(
      { address: '93.184.215.14', family: 4 },
    );

    // A name nobody resolves, pinned to the receiver's address: the request reaches the checked address, named as asked.
    const pinned = await resolveDestination(
      receiver.url.replace('127.0.0.1', 'hooks.invalid'),
      true,
      resolving('127.0.0.1'),
    );
    const result = await send(pinned, { 'webhook-id': 'msg_pinned' }, '{}', 5000);
    expect(result).to.deep.equal({ status: 200, body: '', truncated: false });
    const received = receiver.received.at(-1)!;
    expect(received.headers.host).to.match(/^hooks\.invalid:\d+$/);
    expect(received.headers['webhook-id']).to.equal('msg_pinned');
  });

  it("answers another webmaster's website 401 and another website's webhook 404, changing nothing", async () => {
    const { client, api } = await setUp(strict);
    const intruder = await createWebmasterFixture(strict.provider.runtime);
    const mine = await database
      .db('webhooks')
      .insert({
        website_id: client.websiteId,
        url: 'https://hooks.example.com/in',
        events: ['verification.completed'],
        secret_sealed: strict.provider.runtime.sealer.seal('whsec_x'),
        created_at: new Date(),
      })
      .returning('id')
      .then(([row]) => Number((row as { id: number }).id));
    const theirs = apiClient(strict.url, intruder.apiToken);
    const other = await setUp(strict);
    const state = (await snapshot(database.db)) + JSON.stringify(await database.db('webhooks').orderBy('id').select());
    const base = `/website/${client.websiteId}/webhooks`;
    expect((await theirs.get(base)).status).to.equal(401);
    expect(
      (await theirs.post(base, { url: 'https://evil.example.com/in', events: ['verification.completed'] })).status,
    ).to.equal(401);
    expect((await theirs.delete(`${base}/${mine}`)).status).to.equal(401);
    expect((await theirs.get(`${base}/${mine}/deliveries`)).status).to.equal(401);
    expect((await theirs.post(`${base}/${mine}/test`, {})).status).to.equal(401);
    // Their own website id with my webhook's id: not theirs to see.
    const crossed = `/website/${other.client.websiteId}/webhooks/${mine}`;
    expect((await other.api.delete(crossed)).status).to.equal(404);
    expect((await other.api.get(`${crossed}/deliveries`)).status).to.equal(404);
    expect((await other.api.post(`${crossed}/test`, {})).status).to.equal(404);
    expect((await api.get(`${base}/0/deliveries`)).status).to.equal(400);
    expect((await api.get(`${base}/abc/deliveries`)).status).to.equal(400);
    expect(
      (await snapshot(database.db)) + JSON.stringify(await database.db('webhooks').orderBy('id').select()),
    ).to.equal(state);
    expect(
      await database.db('webhook_messages').where('webhook_id', mine).pluck('id'),
      'no test message queued',
    ).to.deep.equal([]);
  });
});
