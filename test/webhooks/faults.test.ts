import { createServer as createHttpServer } from 'node:http';
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { keptLogger } from '../helpers/log.js';
import type { Database } from '../../lib/store/database.js';
import { LOCAL_RECEIVERS, register, setUp, shortcutFlow, verified } from './helpers.js';
import { startSmtpSink } from '../helpers/smtp-sink.js';
import { MovableClock } from '../oauth2/helpers/clock.js';
import { sweepRetention } from '../../lib/store/retention.js';
import { retriedTransaction } from '../../lib/store/retry.js';
import { enqueueEvent } from '../../lib/webhooks/events.js';
import { BACKLOG_LIMIT, maintainOutbox } from '../../lib/webhooks/maintenance.js';
import { disableEndpoint } from '../../lib/webhooks/outbox.js';
import { startReceiver, startSilentReceiver } from './receiver.js';

const POLL_MS = 100;
const TIMEOUT_MS = 4000;
const FAULTS = {
  ...LOCAL_RECEIVERS,
  WEBHOOK_POLL_INTERVAL_MS: String(POLL_MS),
  WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
};

/** `count` webhook.test messages due now for one endpoint, written as the outbox holds them: a backlog in one statement. */
async function queue(db: Database, webhookId: number, websiteId: number, count: number): Promise<void> {
  await db.raw(
    `INSERT INTO webhook_messages (message_id, webhook_id, type, payload, created_at, next_attempt_at)
     SELECT 'msg_' || md5(random()::text || n), ?, 'webhook.test', ?::jsonb, now(), now()
       FROM generate_series(1, ?) AS n`,
    [
      webhookId,
      JSON.stringify({ type: 'webhook.test', timestamp: new Date().toISOString(), data: { websiteId, webhookId } }),
      count,
    ],
  );
}

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`still waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The operations listener's /metrics, as Prometheus scrapes it. */
async function scrape(app: TestApp): Promise<string> {
  const handle = app.provider.operations.callback();
  const server = createHttpServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await (await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/metrics`)).text();
  } finally {
    server.close();
  }
}
const sample = (metrics: string, series: string): number =>
  Number(
    metrics
      .split('\n')
      .find((line) => line.startsWith(`${series} `))
      ?.split(' ')[1],
  );

const logged = (lines: string[], message: string): Array<Record<string, unknown>> =>
  lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.message === message);

describe('webhooks under faults', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  const apps: TestApp[] = [];
  const receivers: Array<{ close(): Promise<void> }> = [];
  const start = async (env: NodeJS.ProcessEnv, log = keptLogger('info')): Promise<TestApp> => {
    const app = await startTestApp({ env, logger: log }, { shared: database });
    apps.push(app);
    return app;
  };
  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
    for (const receiver of receivers.splice(0)) await receiver.close();
    await database.drop();
  });

  it("keeps another tenant's deliveries at pace while an endpoint with 200 queued messages accepts and never answers", async () => {
    const log = keptLogger('info');
    const app = await start(FAULTS, log);
    const silent = await startSilentReceiver();
    const healthy = await startReceiver();
    receivers.push(silent, healthy);
    const stalled = await setUp(app);
    const stalledHook = await register(stalled.api, stalled.client.websiteId, silent.url);
    await queue(database.db, stalledHook.id, stalled.client.websiteId, 200);
    const other = await setUp(app);
    const otherHook = await register(other.api, other.client.websiteId, healthy.url);
    await until(() => silent.accepted >= 4, 'the silent endpoint holds its slots');

    // While the silent endpoint holds its attempts for their whole timeout, the other tenant's events keep coming.
    const EVENTS = 8;
    const latencies: number[] = [];
    for (let index = 0; index < EVENTS; index += 1) {
      const queued = await other.api.post(`/website/${other.client.websiteId}/webhooks/${otherHook.id}/test`, {});
      expect(queued.status).to.equal(200);
      const committed = Date.now();
      const received = await healthy.waitFor(index + 1);
      latencies.push(received[index]!.at - committed);
    }
    // A batch awaited as a whole would have held each of them for the silent endpoint's timeout (and 200 messages of
    // backlog ahead of them); each arrives well within it.
    expect(Math.max(...latencies), `latencies ${latencies.join(', ')} ms`).to.be.below(TIMEOUT_MS / 2);
    expect(silent.mostAtOnce, 'never more than its cap in flight').to.equal(4);

    // The silent endpoint's attempts end at their timeout: it is backed off, once, and logged once.
    await until(() => logged(log.lines, 'webhook endpoint backed off').length > 0, 'the back-off', 3 * TIMEOUT_MS);
    const backoffs = logged(log.lines, 'webhook endpoint backed off');
    expect(backoffs).to.have.length(1);
    expect(backoffs[0]).to.include({ webhookId: stalledHook.id, outcome: 'timeout', backoffMs: 5000 });
    await until(
      async () => Number((await database.db('webhook_attempts').count({ count: '*' }))[0]!.count) >= EVENTS + 4,
      'the timeouts recorded',
    );
    const metrics = await scrape(app);
    expect(sample(metrics, 'age_provider_webhook_attempts_total{outcome="timeout"}')).to.equal(4);
    expect(sample(metrics, 'age_provider_webhook_attempts_total{outcome="delivered"}')).to.equal(EVENTS);
    expect(sample(metrics, 'age_provider_webhook_backlog_messages')).to.equal(200);
    expect(sample(metrics, 'age_provider_webhook_oldest_due_seconds')).to.be.above(0);
    expect(sample(metrics, 'age_provider_webhook_endpoints_backed_off')).to.equal(1);
    const accepted = silent.accepted;
    await new Promise((resolve) => setTimeout(resolve, 10 * POLL_MS));
    expect(silent.accepted, 'backed off: no new attempt for 5 s').to.equal(accepted);
    const hook = await database.db('webhooks').where('id', stalledHook.id).first('backoff_until', 'failing_since');
    expect(hook.backoff_until).to.be.an.instanceOf(Date);
    expect(hook.failing_since).to.be.an.instanceOf(Date);
  });

  it('disables an endpoint at the first of concurrent 410 answers from two instances, recording every attempt', async () => {
    const log = keptLogger('info');
    const first = await start(LOCAL_RECEIVERS, log);
    await start(LOCAL_RECEIVERS, log);
    const gone = await startReceiver();
    receivers.push(gone);
    gone.answer = () => 410;
    // Answers come late enough that every attempt in flight is answered at about the same time.
    gone.delayMs = 300;
    const { api, client } = await setUp(first);
    const hook = await register(api, client.websiteId, gone.url);
    await queue(database.db, hook.id, client.websiteId, 40);
    await until(
      async () => (await database.db('webhooks').where('id', hook.id).first('disabled_at')).disabled_at !== null,
      'the endpoint disabled',
    );
    // Attempts in flight when the first 410 was recorded end and are recorded too; nothing more is sent.
    await until(
      async () =>
        Number((await database.db('webhook_attempts').count({ count: '*' }))[0]!.count) === gone.received.length,
      'every attempt recorded',
    );
    await new Promise((resolve) => setTimeout(resolve, 10 * 50));
    expect(gone.received.length, 'only what was in flight together').to.be.within(1, 8);
    expect(await database.db('webhook_attempts').pluck('status')).to.deep.equal(gone.received.map(() => 410));
    expect(
      await database.db('webhook_messages').where('webhook_id', hook.id).whereNotNull('next_attempt_at').pluck('id'),
      'nothing left scheduled',
    ).to.deep.equal([]);
    const reasons = await database
      .db('webhook_messages')
      .where('webhook_id', hook.id)
      .distinct()
      .pluck('given_up_reason');
    expect(reasons.filter((reason) => reason !== null)).to.deep.equal(['endpoint disabled']);
    expect(logged(log.lines, 'webhook attempt not recorded'), 'no attempt lost to a deadlock').to.deep.equal([]);
    expect(await database.db('webhooks').where('id', hook.id).first('disabled_reason')).to.deep.equal({
      disabled_reason: 'the receiver answered 410 Gone',
    });
    expect(
      await database
        .db('audit_entries')
        .where({ website_id: client.websiteId, action: 'webhook.disabled' })
        .pluck('id'),
      'disabled once, as one change',
    ).to.have.length(1);
  });

  it("runs visitors' flows while every webhook record waits on a lock: the worker has its own connections", async function () {
    if (!database.url) this.skip(); // the embedded database has one connection, shared by design
    const log = keptLogger('info');
    const app = await start({ ...LOCAL_RECEIVERS, WEBHOOK_ENDPOINT_CONCURRENCY: '32' }, log);
    const receiver = await startReceiver();
    receivers.push(receiver);
    const { api, client } = await setUp(app);
    const hook = await register(api, client.websiteId, receiver.url, ['website.updated']);
    // Every attempt's record locks the endpoint's row first: held here, each record waits on its connection.
    const holder = await database.db.transaction();
    try {
      await holder('webhooks').where('id', hook.id).forNoKeyUpdate().first('id');
      await queue(database.db, hook.id, client.websiteId, 40);
      await receiver.waitFor(32);
      // 32 records waiting would hold every connection of the visitors' pool (10) were they taken from it.
      for (let flow = 0; flow < 3; flow += 1) expect(await shortcutFlow(app, client)).to.be.a('string');
    } finally {
      await holder.commit();
    }
    await until(
      async () =>
        Number((await database.db('webhook_messages').whereNotNull('delivered_at').count({ count: '*' }))[0]!.count) ===
        40,
      'all delivered once the lock is gone',
    );
  });

  it("numbers a website's events in the order they committed, across concurrent writers", async () => {
    const app = await start(LOCAL_RECEIVERS);
    const receiver = await startReceiver();
    receivers.push(receiver);
    const { api, client } = await setUp(app);
    const hook = await register(api, client.websiteId, receiver.url, ['website.updated', 'verification.completed']);
    const EDITS = 8;
    const edits = await Promise.all(
      Array.from({ length: EDITS }, (_, index) => api.patch(`/website/${client.websiteId}`, { name: `Shop ${index}` })),
    );
    expect(edits.map((edit) => edit.status)).to.deep.equal(edits.map(() => 200));
    await shortcutFlow(app, client);
    const received = (await receiver.waitFor(EDITS + 1)).map((one) => verified(hook.secret, one));
    const bySequence = [...received].sort((a, b) => a.sequence - b.sequence);
    const first = bySequence[0]!.sequence;
    expect(bySequence.map((payload) => payload.sequence)).to.deep.equal(
      Array.from({ length: EDITS + 1 }, (_, index) => first + index),
    );
    expect(bySequence.at(-1)!.type, 'the flow came after every edit').to.equal('verification.completed');
    // The audit chain orders the same changes by commit too (its head is locked): the two orders agree.
    const audited = await database
      .db('audit_entries')
      .where('action', 'website.updated')
      .orderBy('seq')
      .select<Array<{ after: { name: string } }>>('after');
    expect(bySequence.slice(0, EDITS).map((payload) => (payload.data.website as { name: string }).name)).to.deep.equal(
      audited.map((entry) => entry.after.name),
    );
  });

  it('answers webhook deletions racing other changes of the same website (8 concurrent writers) without a 500', async () => {
    const app = await start(LOCAL_RECEIVERS);
    const receiver = await startReceiver();
    receivers.push(receiver);
    const { api, client } = await setUp(app);
    const WRITERS = 8;
    // Each change of the website writes a message for every endpoint: its foreign key reaches the rows being deleted.
    const hooks = [];
    for (let index = 0; index < WRITERS; index += 1)
      hooks.push(await register(api, client.websiteId, receiver.url, ['website.updated', 'key.regenerated']));
    const site = `/website/${client.websiteId}`;
    const answers = await Promise.all([
      ...hooks.map((hook) => api.delete(`${site}/webhooks/${hook.id}`)),
      ...hooks.map((_, index) =>
        index % 2 === 0
          ? api.patch(site, { name: `Shop ${index}` })
          : api.patch(`${site}/key/${client.environment.toLowerCase()}/regenerate`),
      ),
    ]);
    expect(answers.map((answer) => answer.status)).to.deep.equal([...hooks.map(() => 204), ...hooks.map(() => 200)]);
    expect(await database.db('webhooks').pluck('id')).to.deep.equal([]);
    const audited = await database.db('audit_entries').where('website_id', client.websiteId).pluck('action');
    expect(audited.filter((action) => action === 'webhook.deleted')).to.have.length(WRITERS);
  });

  it('gives up a message written while its endpoint was being disabled, so nothing stays scheduled past retention', async () => {
    const app = await start({ ...LOCAL_RECEIVERS, WEBHOOK_POLL_INTERVAL_MS: '3600000' });
    const { api, client } = await setUp(app);
    const hook = await register(api, client.websiteId, 'http://127.0.0.1:9/hooks', ['website.updated']);
    const writer = await database.db.transaction();
    // The writer's message is in (its snapshot saw the endpoint enabled) but not committed when the disabling commits.
    await enqueueEvent(writer, client.websiteId, 'website.updated', { website: { name: 'x' } }, new Date());
    const disabling = retriedTransaction(database.db, (trx) =>
      disableEndpoint(trx, hook.id, new Date(), 'the receiver answered 410 Gone'),
    );
    // On the embedded database the two share one connection: the disabling runs once the writer is done.
    if (database.url) expect(await disabling).to.equal(true);
    await writer.commit();
    await disabling;
    const scheduled = () =>
      database.db('webhook_messages').where('webhook_id', hook.id).whereNotNull('next_attempt_at').pluck('id');
    if (database.url) expect(await scheduled(), 'left scheduled by the race').to.have.length(1);
    const upkeep = await maintainOutbox({
      runtime: app.provider.runtime,
      db: database.db,
      mailer: undefined,
      brand: 'x',
    });
    expect(upkeep.leftovers).to.equal(database.url ? 1 : 0);
    expect(await scheduled()).to.deep.equal([]);
    expect(
      await database.db('webhook_messages').where('webhook_id', hook.id).first('given_up_reason', 'given_up_at'),
    ).to.have.property('given_up_reason', 'endpoint disabled');
    const limits = app.provider.config;
    const later = new Date(Date.now() + (limits.verificationRetention + 60) * 1000);
    await sweepRetention(database.db, later, limits);
    expect(
      await database.db('webhook_messages').where('webhook_id', hook.id).pluck('id'),
      'swept in time',
    ).to.deep.equal([]);
  });

  it(`bounds each endpoint's backlog at ${BACKLOG_LIMIT} messages, giving up the oldest with the reason`, async () => {
    const app = await start({ ...LOCAL_RECEIVERS, WEBHOOK_POLL_INTERVAL_MS: '3600000' });
    const { api, client } = await setUp(app);
    const hook = await register(api, client.websiteId, 'http://127.0.0.1:9/hooks', ['website.updated']);
    await queue(database.db, hook.id, client.websiteId, BACKLOG_LIMIT + 5);
    const ids = await database.db('webhook_messages').orderBy('id').pluck('id');
    const upkeep = await maintainOutbox({
      runtime: app.provider.runtime,
      db: database.db,
      mailer: undefined,
      brand: 'x',
    });
    expect(upkeep.overBacklog).to.equal(5);
    const givenUp = await database
      .db('webhook_messages')
      .whereNotNull('given_up_at')
      .orderBy('id')
      .select('id', 'given_up_reason');
    expect(givenUp).to.deep.equal(
      ids.slice(0, 5).map((id) => ({ id, given_up_reason: `backlog over ${BACKLOG_LIMIT} messages` })),
    );
    expect(
      (await maintainOutbox({ runtime: app.provider.runtime, db: database.db, mailer: undefined, brand: 'x' }))
        .overBacklog,
    ).to.equal(0);
  });

  it('disables an endpoint failing for WEBHOOK_DISABLE_AFTER_HOURS, in the audit trail and by mail to the owners', async () => {
    const smtp = await startSmtpSink();
    receivers.push(smtp);
    const clock = new MovableClock();
    const log = keptLogger('info');
    const app = await startTestApp(
      {
        clock,
        logger: log,
        env: { ...LOCAL_RECEIVERS, SMTP_URL: smtp.url, MAIL_FROM: 'Age Provider <no-reply@age.example>' },
      },
      { shared: database },
    );
    apps.push(app);
    const failing = await startReceiver();
    receivers.push(failing);
    failing.answer = () => 500;
    const { api, client, webmaster } = await setUp(app);
    const hook = await register(api, client.websiteId, failing.url, ['website.updated']);
    expect((await api.post(`/website/${client.websiteId}/webhooks/${hook.id}/test`, {})).status).to.equal(200);
    await failing.waitFor(1);
    await until(
      async () => (await database.db('webhooks').where('id', hook.id).first('failing_since')).failing_since !== null,
      'the failure recorded',
    );
    clock.advance(119 * 3600);
    await new Promise((resolve) => setTimeout(resolve, 40 * 50));
    expect((await database.db('webhooks').where('id', hook.id).first('disabled_at')).disabled_at, '119 h').to.equal(
      null,
    );
    clock.advance(2 * 3600);
    await until(async () => smtp.mails.length > 0, 'the mail to the owner');
    const listed = await api.get<Array<{ id: number; disabledAt: string | null }>>(
      `/website/${client.websiteId}/webhooks`,
    );
    expect(listed.body.find((one) => one.id === hook.id)!.disabledAt).to.be.a('string');
    expect(smtp.mails).to.have.length(1);
    expect(smtp.mails[0]!.to.join()).to.include(`<${webmaster.email}>`);
    expect(smtp.mails[0]!.data).to.include('120 hours').and.include(failing.url);
    const audit = await api.get<{ entries: Array<{ action: string; actor: { type: string; id: string } }> }>(
      `/website/${client.websiteId}/audit?limit=1`,
    );
    expect(audit.body.entries[0]).to.deep.include({
      action: 'webhook.disabled',
      actor: { type: 'operator', id: 'webhook delivery' },
    });
    expect(
      await database.db('webhook_messages').where('webhook_id', hook.id).whereNotNull('next_attempt_at').pluck('id'),
    ).to.deep.equal([]);
  });
});
