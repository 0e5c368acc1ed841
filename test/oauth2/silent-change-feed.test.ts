import { setTimeout as delay } from 'node:timers/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import knexFactory from 'knex';
import { knexAdapter } from '../../adapters/knex.js';
import { createAgeProvider, type AgeProvider } from '../../lib/app/app.js';
import { createLogger } from '../../lib/log.js';
import type { Database } from '../../lib/store/database.js';
import { updateOAuth2Config } from '../../lib/websites/oauth2.js';
import { startTestApp, testSecrets, type TestApp } from '../helpers/app.js';
import { createClientFixture, createWebmasterFixture, TEST_ORIGIN } from '../helpers/fixtures.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { tokenEndpointAccepts } from './helpers/oauth2.js';

/** The second instance's heartbeat: a silent feed is distrusted within two (docs/configuration.md). */
const HEARTBEAT_MS = 500;
/** What a shared CI machine may add to the bound: scheduling, the token request itself. */
const SLACK_MS = 3000;
/** How long the test waits for what has no bound to meet (a listening feed, its recovery). */
const PATIENCE_MS = 15_000;

/**
 * Two instances on one PostgreSQL database, the second reaching it through a TCP proxy the test controls: its change
 * feed's connection is silenced (nothing forwarded, nothing closed) while its pool keeps working, as when a NAT or
 * firewall drops an idle flow. A client disabled on the first must be refused by the second within the bound.
 */
describe('oauth2: an instance whose change feed went silent', function () {
  this.timeout(60_000);
  let first: TestApp;
  let proxy: TcpProxy;
  let second: { provider: AgeProvider; server: Server; db: Database; url: string };
  const logged: Array<{ level: string; message: string }> = [];

  before(async function () {
    if (!process.env.DATABASE_URL) this.skip(); // the embedded database belongs to one process: no second instance, no LISTEN connection
    first = await startTestApp();
    proxy = await startTcpProxy(first.database.url!);
    const db = knexFactory({ client: 'pg', connection: proxy.url, pool: { min: 0, max: 4 } });
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const logger = createLogger('info', (line) => logged.push(JSON.parse(line) as { level: string; message: string }));
    const provider = await createAgeProvider(
      {
        env: { CHANGE_FEED_HEARTBEAT_MS: String(HEARTBEAT_MS) },
        logger,
        issuer: first.url,
        ...testSecrets,
        db,
        databaseUrl: proxy.url,
      },
      knexAdapter,
    );
    const handle = provider.app.callback();
    server.on('request', (request, response) => void handle(request, response));
    second = { provider, server, db, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  });
  after(async () => {
    if (!first) return;
    if (second) {
      second.server.closeAllConnections();
      await new Promise<void>((resolve) => second.server.close(() => resolve()));
      await second.provider.close();
      await second.db.destroy();
    }
    await proxy.close();
    await first.close();
  });

  /** Asks until `answer` comes or `withinMs` passed; the answer last seen. */
  async function within(withinMs: number, ask: () => Promise<boolean>, answer: boolean): Promise<boolean> {
    const until = Date.now() + withinMs;
    let seen = await ask();
    while (seen !== answer && Date.now() < until) {
      await delay(20);
      seen = await ask();
    }
    return seen;
  }

  const feedsListening = () =>
    proxy.connections().filter((connection) => connection.listens && !connection.silenced).length;

  it('refuses a client disabled on the other instance within two heartbeats, says so in its log, and recovers', async () => {
    const webmasterId = (await createWebmasterFixture(first.provider.runtime)).id;
    const client = await createClientFixture(first.provider.runtime, webmasterId);
    const acceptsOnSecond = () => tokenEndpointAccepts(second.url, client, client.redirectUri);
    expect(await within(PATIENCE_MS, async () => feedsListening() === 1, true), 'the second instance listens').to.equal(
      true,
    );
    // Served from the second instance's cache from now on: no client lookup reaches its database.
    let lookups = 0;
    second.db.on('query', (query: { sql?: string }) => {
      if (query.sql?.includes('oauth2_credentials')) lookups += 1;
    });
    expect(
      await within(
        PATIENCE_MS,
        async () => {
          const before = lookups;
          return (await acceptsOnSecond()) && lookups === before;
        },
        true,
      ),
      'accepted from the cache',
    ).to.equal(true);

    expect(proxy.silence((connection) => connection.listens)).to.equal(1);
    await updateOAuth2Config(
      first.provider.runtime,
      webmasterId,
      client.websiteId,
      client.environment,
      { status: 'DISABLED' },
      TEST_ORIGIN,
    );
    expect(
      await within(2 * HEARTBEAT_MS + SLACK_MS, acceptsOnSecond, false),
      'disabled on the first, refused by the second',
    ).to.equal(false);
    expect(logged.filter((line) => line.level === 'warn').map((line) => line.message)).to.include(
      'distrusting the database change feed: client lookups go to the database until it is back',
    );

    // A new LISTEN connection is forwarded again: the feed recovers, and carries the next change.
    expect(await within(PATIENCE_MS, async () => feedsListening() === 1, true), 'listening again').to.equal(true);
    expect(
      await within(
        PATIENCE_MS,
        async () => logged.some((line) => line.message.startsWith('the database change feed is back')),
        true,
      ),
    ).to.equal(true);
    await updateOAuth2Config(
      first.provider.runtime,
      webmasterId,
      client.websiteId,
      client.environment,
      { status: 'ACTIVE' },
      TEST_ORIGIN,
    );
    expect(
      await within(PATIENCE_MS, acceptsOnSecond, true),
      're-enabled on the first, accepted by the second',
    ).to.equal(true);
  });
});
