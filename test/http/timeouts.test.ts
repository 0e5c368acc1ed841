import { expect } from 'chai';
import { createLogger } from '../../lib/log.js';
import { openDatabase, type Database } from '../../lib/store/database.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { frozenDatabase } from '../helpers/frozen-peer.js';

describe('a database that does not answer', function () {
  this.timeout(60_000);
  let frozen: Awaited<ReturnType<typeof frozenDatabase>>;
  before(async () => {
    frozen = await frozenDatabase();
  });
  after(() => frozen.close());

  describe('behind the app', () => {
    let db: Database;
    let app: TestApp;
    before(async () => {
      // Waits far longer than the test's own timeout: only the request deadline and /readyz's bound can answer.
      db = await openDatabase({
        databaseUrl: frozen.url,
        limits: { poolMax: 2, acquireTimeoutMs: 600_000, statementTimeoutMs: 600_000 },
        log: createLogger('silent'),
      });
      app = await startTestApp({ db, requestTimeoutMs: 1000 });
    });
    after(async () => {
      await app.close();
      await db.destroy().catch(() => undefined);
    });

    it('/readyz answers 503 instead of hanging', async () => {
      const response = await fetch(`${app.url}/readyz`);
      expect(response.status).to.equal(503);
      expect(await response.json()).to.deep.equal({ status: 'unavailable' });
    });

    it('a request waiting for it fails at the request deadline instead of hanging', async () => {
      const response = await fetch(`${app.url}/external/website/1`, {
        headers: { Authorization: 'Bearer apt_unknown' },
      });
      expect(response.status).to.be.at.least(500);
    });
  });

  it('a connection attempt gives up after DB_ACQUIRE_TIMEOUT_MS, logged as one JSON line', async () => {
    const lines: string[] = [];
    const db = await openDatabase({
      databaseUrl: frozen.url,
      limits: { poolMax: 1, acquireTimeoutMs: 300, statementTimeoutMs: 1000 },
      log: createLogger('debug', (line) => lines.push(line)),
    });
    try {
      await db.raw('select 1').then(
        () => expect.fail('answered'),
        (error: Error) => expect(error.message).to.match(/timeout/i),
      );
    } finally {
      await db.destroy();
    }
    expect(lines).not.to.be.empty;
    for (const line of lines) {
      expect(line.trimEnd().split('\n')).to.have.length(1);
      expect(JSON.parse(line))
        .to.include({ level: 'warn' })
        .and.have.property('message')
        .that.matches(/^database: /);
    }
  });
});

describe('a statement that runs too long', () => {
  it('is cancelled by the server after DB_STATEMENT_TIMEOUT_MS (PostgreSQL)', async function () {
    if (!process.env.DATABASE_URL) this.skip();
    const db = await openDatabase({
      databaseUrl: process.env.DATABASE_URL,
      limits: { poolMax: 1, acquireTimeoutMs: 5000, statementTimeoutMs: 200 },
    });
    try {
      await db.raw('select pg_sleep(30)').then(
        () => expect.fail('finished'),
        (error: { code?: string }) => expect(error.code).to.equal('57014'),
      );
    } finally {
      await db.destroy();
    }
  });
});
