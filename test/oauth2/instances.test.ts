import { setTimeout as delay } from 'node:timers/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import knexFactory from 'knex';
import { createAgeProvider, type AgeProvider } from '../../lib/app/app.js';
import { knexAdapter } from '../../adapters/knex.js';
import type { Database } from '../../lib/store/database.js';
import { regenerateOAuth2Credentials, updateOAuth2Config } from '../../lib/websites/oauth2.js';
import { startTestApp, testSecrets, type TestApp } from '../helpers/app.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture, TEST_ORIGIN } from '../helpers/fixtures.js';
import { tokenEndpointAccepts } from './helpers/oauth2.js';

/** Asks until `answer` comes (each instance caches clients; another's change reaches it by LISTEN/NOTIFY). */
async function eventually(ask: () => Promise<boolean>, answer: boolean): Promise<boolean> {
  for (let attempt = 0; attempt < 150; attempt += 1) {
    if ((await ask()) === answer) return answer;
    await delay(20);
  }
  return !answer;
}

describe('oauth2: two instances on one PostgreSQL database', function () {
  let first: TestApp;
  let second: { provider: AgeProvider; server: Server; db: Database; url: string };
  let webmasterId: number;

  before(async function () {
    // The embedded database belongs to one process: there is no second instance to run.
    if (!process.env.DATABASE_URL) this.skip();
    first = await startTestApp();
    const db = knexFactory({ client: 'pg', connection: first.database.url!, pool: { min: 0, max: 4 } });
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Behind one load balancer both answer for the same issuer.
    const provider = await createAgeProvider(
      { env: {}, logLevel: 'silent', issuer: first.url, ...testSecrets, db, databaseUrl: first.database.url! },
      knexAdapter,
    );
    const handle = provider.app.callback();
    server.on('request', (request, response) => void handle(request, response));
    second = { provider, server, db, url };
    webmasterId = (await createWebmasterFixture(first.provider.runtime)).id;
  });
  after(async () => {
    if (!second) return;
    second.server.closeAllConnections();
    await new Promise<void>((resolve) => second.server.close(() => resolve()));
    await second.provider.close();
    await second.db.destroy();
    await first.close();
  });

  const acceptsOnSecond = (
    pair: ClientFixture | { clientId?: string | null; clientSecret?: string | null },
    client: ClientFixture,
  ) => tokenEndpointAccepts(second.url, pair, client.redirectUri);

  it('refuses a client on the other instance once one disables it, and serves it again once re-enabled', async () => {
    const client = await createClientFixture(first.provider.runtime, webmasterId);
    expect(await acceptsOnSecond(client, client)).to.equal(true);
    await updateOAuth2Config(
      first.provider.runtime,
      webmasterId,
      client.websiteId,
      client.environment,
      { status: 'DISABLED' },
      TEST_ORIGIN,
    );
    expect(
      await eventually(() => acceptsOnSecond(client, client), false),
      'disabled on the first, refused by the second',
    ).to.equal(false);
    await updateOAuth2Config(
      first.provider.runtime,
      webmasterId,
      client.websiteId,
      client.environment,
      { status: 'ACTIVE' },
      TEST_ORIGIN,
    );
    expect(
      await eventually(() => acceptsOnSecond(client, client), true),
      're-enabled on the first, accepted by the second',
    ).to.equal(true);
  });

  it('accepts a rotated pair on the other instance at once, and keeps the old pair in its grace', async () => {
    const client = await createClientFixture(first.provider.runtime, webmasterId);
    expect(await acceptsOnSecond(client, client)).to.equal(true);
    const rotated = await regenerateOAuth2Credentials(
      first.provider.runtime,
      webmasterId,
      client.websiteId,
      client.environment,
      TEST_ORIGIN,
    );
    expect(await eventually(() => acceptsOnSecond(rotated, client), true), 'the new pair on the second').to.equal(true);
    expect(await acceptsOnSecond(client, client), 'the old pair, in its grace').to.equal(true);
    // A second rotation ends the first pair's grace at once: the other instance must see that too.
    await regenerateOAuth2Credentials(
      first.provider.runtime,
      webmasterId,
      client.websiteId,
      client.environment,
      TEST_ORIGIN,
    );
    expect(await eventually(() => acceptsOnSecond(client, client), false), 'the first pair, its grace ended').to.equal(
      false,
    );
  });

  it('still sees a change made while its change feed was cut off', async () => {
    const client = await createClientFixture(first.provider.runtime, webmasterId);
    expect(await acceptsOnSecond(client, client)).to.equal(true);
    // Both instances lose their LISTEN connection; the change happens before they are back.
    await second.db.raw(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'`,
    );
    await updateOAuth2Config(
      first.provider.runtime,
      webmasterId,
      client.websiteId,
      client.environment,
      { status: 'DISABLED' },
      TEST_ORIGIN,
    );
    expect(await eventually(() => acceptsOnSecond(client, client), false), 'refused by the second').to.equal(false);
    await updateOAuth2Config(
      first.provider.runtime,
      webmasterId,
      client.websiteId,
      client.environment,
      { status: 'ACTIVE' },
      TEST_ORIGIN,
    );
    expect(
      await eventually(() => acceptsOnSecond(client, client), true),
      'and accepted again once re-enabled',
    ).to.equal(true);
  });
});
