import { expect } from 'chai';
import knexFactory from 'knex';
import type { Database } from '../../lib/store/database.js';
import { verificationRow } from '../../lib/verification/verifications.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createClientFixture, createWebmasterFixture } from '../helpers/fixtures.js';

const ROLLUP = { STATISTICS_ROLLUP_INTERVAL_MS: '100' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A verification as a flow records it, for `websiteId`, now. */
const row = (websiteId: number) =>
  verificationRow({
    websiteId,
    environment: 'TEST',
    challenge: 'sandbox',
    assuranceLevel: 'STANDARD',
    ageThreshold: 18,
    country: 'DE',
    countrySubdivision: null,
    verified: true,
    reused: false,
    verifiedAt: new Date(),
    ttlSeconds: 3600,
    policy: [],
  });

/** Verifications counted in the aggregates of `websiteId` (passed and reused, every day). */
async function countedIn(db: Database, websiteId: number): Promise<number> {
  const [{ total }] = (await db('statistics_daily')
    .where('website_id', websiteId)
    .select(db.raw('COALESCE(SUM(passed + reused), 0)::int AS total'))) as [{ total: number }];
  return total;
}

async function settled(db: Database, websiteId: number, rows: number): Promise<number> {
  for (let waited = 0; waited < 10_000; waited += 50) {
    if ((await countedIn(db, websiteId)) >= rows) break;
    await sleep(50);
  }
  // A few more rollups of both instances: a row counted twice would show now.
  await sleep(500);
  return countedIn(db, websiteId);
}

/**
 * Issue 37: ids are taken before commit, so a verification whose lower id commits after a higher one (already
 * counted by a rollup) must still be counted, once, whichever of two instances rolls up.
 */
describe('statistics: two instances rolling up every 100 ms while writers race, count every verification once', () => {
  let database: TestDatabase;
  let first: TestApp;
  let second: TestApp;
  let secondDb: Database | undefined;
  let writers: Database;
  let websiteId: number;

  before(async function () {
    this.timeout(60_000);
    database = await createTestDatabase();
    first = await startTestApp({ env: ROLLUP }, { shared: database });
    // On PostgreSQL each instance has its own pool, as two processes would; the embedded database has one connection.
    secondDb = database.url
      ? knexFactory({ client: 'pg', connection: database.url, pool: { min: 0, max: 5 } })
      : undefined;
    second = await startTestApp({ env: ROLLUP, ...(secondDb ? { db: secondDb } : {}) }, { shared: database });
    writers = database.url
      ? knexFactory({ client: 'pg', connection: database.url, pool: { min: 0, max: 12 } })
      : database.db;
    const webmaster = await createWebmasterFixture(first.provider.runtime);
    ({ websiteId } = await createClientFixture(first.provider.runtime, webmaster.id));
  });
  after(async () => {
    await second?.close();
    await first?.close();
    if (database?.url) await writers.destroy();
    await secondDb?.destroy();
    await database?.drop();
  });

  it('counts a lower id committed after a higher one that a rollup already counted', async function () {
    if (!database.url) this.skip(); // one connection: a transaction held open would hold every other one
    this.timeout(120_000);
    const before = await countedIn(first.provider.db, websiteId);
    const late = await writers.transaction();
    await late('verifications').insert(row(websiteId));
    await writers('verifications').insert(row(websiteId));
    for (let waited = 0; (await countedIn(first.provider.db, websiteId)) < before + 1; waited += 20) {
      expect(waited, 'the committed row is counted').to.be.below(10_000);
      await sleep(20);
    }
    await late.commit();
    expect(await settled(first.provider.db, websiteId, before + 2)).to.equal(before + 2);
  });

  it('counts, with writers committing in any order for 3 s, exactly the rows written', async function () {
    this.timeout(60_000);
    const until = Date.now() + 3000;
    const write = async (): Promise<void> => {
      while (Date.now() < until) {
        await writers.transaction(async (trx) => {
          await trx('verifications').insert(row(websiteId));
          // Held open a random while (PostgreSQL): later ids commit first, and rollups run in between.
          if (database.url) await sleep(Math.random() * 150);
        });
      }
    };
    await Promise.all(Array.from({ length: database.url ? 10 : 2 }, write));
    const rows = (
      await first.provider.db('verifications').where('website_id', websiteId).count<{ rows: string }[]>('* AS rows')
    )[0]!.rows;
    expect(Number(rows)).to.be.above(database.url ? 100 : 10);
    expect(await settled(first.provider.db, websiteId, Number(rows))).to.equal(Number(rows));
    const uncounted = await first.provider
      .db('verifications')
      .where('counted', false)
      .count<{ n: string }[]>('* AS n')
      .first();
    expect(Number(uncounted?.n)).to.equal(0);
  });
});
