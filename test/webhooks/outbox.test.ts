import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { sweepRetention } from '../../lib/store/retention.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { LOCAL_RECEIVERS, register, setUp, shortcutFlow, verified } from './helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

/** An instance that never looks at the outbox while a test runs: what a crash right after the event leaves. */
const NEVER_DELIVERS = { ...LOCAL_RECEIVERS, WEBHOOK_POLL_INTERVAL_MS: '3600000' };

describe('webhooks: the outbox', () => {
  let database: TestDatabase;
  let receiver: Receiver;
  const apps: TestApp[] = [];
  const start = async (env: NodeJS.ProcessEnv): Promise<TestApp> => {
    const app = await startTestApp({ env }, { shared: database });
    apps.push(app);
    return app;
  };
  beforeEach(async () => {
    database = await createTestDatabase();
    receiver = await startReceiver();
  });
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
    await receiver.close();
    await database.drop();
  });

  it("keeps a verification's message when the instance stops before delivering it, and the restarted service delivers it", async () => {
    const crashed = await start(NEVER_DELIVERS);
    const { client, api } = await setUp(crashed);
    const hook = await register(api, client.websiteId, receiver.url);
    await shortcutFlow(crashed, client);
    await crashed.close();
    apps.splice(apps.indexOf(crashed), 1);
    expect(receiver.received).to.have.length(0);
    const pending = await database.db('webhook_messages').select('type', 'delivered_at');
    expect(pending).to.deep.equal([{ type: 'verification.completed', delivered_at: null }]);

    const restarted = await start(LOCAL_RECEIVERS);
    const [received] = await receiver.waitFor(1);
    expect(verified(hook.secret, received!).type).to.equal('verification.completed');
    await restarted.close();
    apps.splice(0);

    // Once delivered, the message (which carries the verification's result) lives no longer than a verification.
    const limits = restarted.provider.config;
    const deliveredAt = (await database.db('webhook_messages').first<{ delivered_at: Date }>('delivered_at'))!
      .delivered_at;
    const kept = await sweepRetention(
      database.db,
      new Date(deliveredAt.getTime() + limits.verificationRetention * 1000 - 1000),
      limits,
    );
    expect(kept.webhook_messages).to.equal(0);
    await sweepRetention(
      database.db,
      new Date(deliveredAt.getTime() + limits.verificationRetention * 1000 + 1000),
      limits,
    );
    expect(await database.db('webhook_messages').pluck('id')).to.deep.equal([]);
    expect(await database.db('webhook_attempts').pluck('id')).to.deep.equal([]);
  });

  it('lets two instances share the outbox without sending any message twice', async () => {
    const first = await start(LOCAL_RECEIVERS);
    const { client, api } = await setUp(first);
    const second = await start(LOCAL_RECEIVERS);
    const hook = await register(api, client.websiteId, receiver.url);
    const MESSAGES = 40;
    for (let index = 0; index < MESSAGES; index += 1) {
      expect((await api.post(`/website/${client.websiteId}/webhooks/${hook.id}/test`, {})).status).to.equal(200);
    }
    await receiver.waitFor(MESSAGES);
    // Closing waits for each instance's look at the outbox in progress: any second send would have arrived by now.
    for (const app of [first, second]) await app.close();
    apps.splice(0);
    const ids = receiver.received.map((one) => one.headers['webhook-id']);
    expect(ids).to.have.length(MESSAGES);
    expect(new Set(ids).size).to.equal(MESSAGES);
    const attempts = await database.db('webhook_attempts').select('attempt', 'status');
    expect(attempts).to.have.length(MESSAGES);
    expect(
      attempts.every((attempt: { attempt: number; status: number }) => attempt.attempt === 1 && attempt.status === 200),
    ).to.equal(true);
  });

  it('sends nothing for a change that rolled back after its message was written, and delivers the same change once it commits', async () => {
    const app = await start(LOCAL_RECEIVERS);
    const { client, api } = await setUp(app);
    const hook = await register(api, client.websiteId, receiver.url, ['website.updated']);
    // The platform's Settings form edits through the same service (updateWebsite), in the same transaction.
    // Fails the website edit at COMMIT (a deferred trigger), and only once its outbox row is there: the transaction
    // rolls back after everything in it, the message included, was written.
    await database.db.raw(`CREATE FUNCTION fail_after_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.action = 'website.updated' AND EXISTS (SELECT 1 FROM webhook_messages
             WHERE type = 'website.updated' AND payload -> 'data' -> 'website' ->> 'name' = NEW.after ->> 'name') THEN
          RAISE EXCEPTION 'injected failure at commit, after the outbox row';
        END IF;
        RETURN NULL;
      END $$`);
    await database.db.raw(`CREATE CONSTRAINT TRIGGER fail_after_outbox AFTER INSERT ON audit_entries
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fail_after_outbox()`);
    const stored = async (): Promise<string> =>
      JSON.stringify({
        websites: await database.db('websites').orderBy('id').select(),
        audit_entries: await database.db('audit_entries').orderBy('id').select(),
        audit_heads: await database.db('audit_heads').orderBy('chain').select(),
        webhook_messages: await database.db('webhook_messages').orderBy('id').select(),
      });
    const before = await stored();
    const edit = { name: 'Edited shop', regions: ['FR'] };
    const failed = await api.patch<{ statusCode: number; error: string }>(`/website/${client.websiteId}`, edit);
    expect(failed.status).to.equal(500);
    expect(failed.body).to.include({ statusCode: 500, error: 'Internal Server Error' });
    expect(await stored(), 'nothing stored: no edit, no audit entry, no message').to.equal(before);
    // Several looks at the outbox later, the receiver still has nothing.
    await new Promise((resolve) => setTimeout(resolve, 10 * Number(LOCAL_RECEIVERS.WEBHOOK_POLL_INTERVAL_MS)));
    expect(receiver.received).to.have.length(0);

    await database.db.raw('DROP TRIGGER fail_after_outbox ON audit_entries');
    await database.db.raw('DROP FUNCTION fail_after_outbox()');
    expect((await api.patch(`/website/${client.websiteId}`, edit)).status).to.equal(200);
    const [received] = await receiver.waitFor(1);
    expect(verified(hook.secret, received!).data.website).to.deep.include(edit);
    await app.close();
    apps.splice(0);
    expect(receiver.received, 'the committed change only').to.have.length(1);
    expect(await database.db('webhook_messages').pluck('type')).to.deep.equal(['website.updated']);
  });

  it("writes a verification's message in the statement of the verification: a flow issues as many statements with a webhook as without", async () => {
    const app = await start(NEVER_DELIVERS);
    const { client, api } = await setUp(app);
    let statements = 0;
    const count = () => {
      statements += 1;
    };
    const statementsOfFlow = async (): Promise<number> => {
      statements = 0;
      app.provider.db.on('query', count);
      try {
        await shortcutFlow(app, client);
      } finally {
        app.provider.db.off('query', count);
      }
      return statements;
    };
    await statementsOfFlow(); // warms the instance's client cache, as in service
    const without = await statementsOfFlow();
    expect(
      await database
        .db('webhook_messages')
        .count<Array<{ count: string | number }>>({ count: '*' })
        .then(([row]) => Number(row!.count)),
    ).to.equal(0);
    await register(api, client.websiteId, receiver.url);
    await statementsOfFlow();
    const withWebhook = await statementsOfFlow();
    expect(withWebhook).to.equal(without);
    expect(await database.db('webhook_messages').pluck('type')).to.deep.equal([
      'verification.completed',
      'verification.completed',
    ]);
  });
});
