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

  it('keeps a verification\'s message when the instance stops before delivering it, and the restarted service delivers it', async () => {
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
    const deliveredAt = (await database.db('webhook_messages').first<{ delivered_at: Date }>('delivered_at'))!.delivered_at;
    const kept = await sweepRetention(database.db, new Date(deliveredAt.getTime() + limits.verificationRetention * 1000 - 1000), limits);
    expect(kept.webhook_messages).to.equal(0);
    await sweepRetention(database.db, new Date(deliveredAt.getTime() + limits.verificationRetention * 1000 + 1000), limits);
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
    expect(attempts.every((attempt: { attempt: number; status: number }) => attempt.attempt === 1 && attempt.status === 200)).to.equal(true);
  });

  it('writes a verification\'s message in the statement of the verification: a flow issues as many statements with a webhook as without', async () => {
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
    expect(await database.db('webhook_messages').count<Array<{ count: string | number }>>({ count: '*' }).then(([row]) => Number(row!.count))).to.equal(0);
    await register(api, client.websiteId, receiver.url);
    await statementsOfFlow();
    const withWebhook = await statementsOfFlow();
    expect(withWebhook).to.equal(without);
    expect(await database.db('webhook_messages').pluck('type')).to.deep.equal(['verification.completed', 'verification.completed']);
  });
});
