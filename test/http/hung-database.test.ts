import { expect } from 'chai';
import { createLogger } from '../../lib/log.js';
import { openDatabase, type Database } from '../../lib/store/database.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createClientFixture, createWebmasterFixture } from '../helpers/fixtures.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { issueToken, readResources } from '../oauth2/helpers/oauth2.js';

/**
 * A database that hangs with queries already sent to it: the app reaches PostgreSQL through a TCP proxy that stops
 * forwarding on every open connection (nothing answered, nothing closed), as a frozen server or a network gone
 * silent does. New connections are forwarded: the database is reachable again for whoever connects afresh.
 */
describe('a database that hangs with a query already sent', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let proxy: TcpProxy;
  let db: Database;
  let app: TestApp;
  let accessToken: string;

  before(async function () {
    if (!process.env.DATABASE_URL) this.skip(); // the embedded database runs in the process: there is no connection to hang
    database = await createTestDatabase();
    proxy = await startTcpProxy(database.url!);
    // The client gives up on an unanswered statement 1 s after the server's own 500 ms timeout.
    db = await openDatabase({
      databaseUrl: proxy.url,
      limits: { poolMax: 2, acquireTimeoutMs: 2000, statementTimeoutMs: 500 },
      log: createLogger('silent'),
    });
    app = await startTestApp({ db, databaseUrl: proxy.url });
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    accessToken = (await issueToken(app, await createClientFixture(app.provider.runtime, webmaster.id))).access_token;
  });
  after(async () => {
    await app?.close();
    await db?.destroy();
    await proxy?.close();
    await database?.drop();
  });

  it("answers 503 with Retry-After in the surface's shape, and the next request, on a new connection, 200", async () => {
    expect((await readResources(app, accessToken)).status).to.equal(200);
    expect(proxy.silence()).to.be.greaterThan(0);
    const hung = await readResources(app, accessToken);
    expect(hung.status).to.equal(503);
    expect(Number(hung.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(await hung.json()).to.include({ error: 'temporarily_unavailable' });
    // The connection that never answered is not handed out again.
    expect((await readResources(app, accessToken)).status).to.equal(200);
  });
});
