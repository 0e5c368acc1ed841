import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import type { Database } from '../../lib/store/database.js';
import { authorize, issueToken, readResources, requestToken, useOAuth2App } from './helpers/oauth2.js';

/** The part of knex's client a test uses to choose which pooled connection a request gets. */
interface PoolOwner {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
  pool: { max: number };
}

/** A pooled pg connection, asked directly what it has prepared. */
interface PgClient {
  query(text: string): Promise<{ rows: Array<{ name: string; statement: string }> }>;
}

/**
 * Runs `request` once on each connection of the pool: the pool is filled to its maximum and held, and one connection
 * at a time is given back, so the request can run on that one only (the pool may not open another).
 */
async function onEveryConnection(db: Database, request: () => Promise<number>): Promise<number[]> {
  const owner = db.client as PoolOwner;
  const held = await Promise.all(Array.from({ length: owner.pool.max }, () => owner.acquireConnection()));
  const statuses: number[] = [];
  try {
    for (let index = 0; index < held.length; index += 1) {
      await owner.releaseConnection(held[index]);
      statuses.push(await request());
      held[index] = await owner.acquireConnection();
    }
  } finally {
    await Promise.all(held.map((connection) => owner.releaseConnection(connection)));
  }
  return statuses;
}

/**
 * A newer instance migrating `verifications` while this one keeps serving (a rolling deploy): every pooled
 * connection has Resources' statement prepared on the table as it was, and must keep answering once it changed.
 */
describe('oauth2: Resources while the verifications table changes under a running server', function () {
  this.timeout(120_000);
  const harness = useOAuth2App();
  let accessToken: string;
  const readStatus = async (): Promise<number> => (await readResources(harness.app, accessToken)).status;

  before(async () => {
    accessToken = (await issueToken(harness.app, await harness.client())).access_token;
  });

  it('leaves no statement prepared on a pooled connection that returns a whole row (`*`) of a table', async function () {
    if (!process.env.DATABASE_URL) this.skip(); // the embedded database prepares no named statement: it plans at each call
    const { db } = harness.app.provider;
    await onEveryConnection(db, readStatus);
    const owner = db.client as PoolOwner;
    const held = await Promise.all(Array.from({ length: owner.pool.max }, () => owner.acquireConnection()));
    try {
      const prepared = await Promise.all(
        held.map(
          async (connection) =>
            (await (connection as PgClient).query('SELECT name, statement FROM pg_prepared_statements')).rows,
        ),
      );
      const statements = prepared.flat();
      expect(statements.map((row) => row.name)).to.include('verifications_of_bearer');
      expect(statements.filter((row) => /\*\s*(,|FROM)/i.test(row.statement)).map((row) => row.name)).to.deep.equal([]);
    } finally {
      await Promise.all(held.map((connection) => owner.releaseConnection(connection)));
    }
  });

  it('answers 200 on every pooled connection after a column is added', async () => {
    const { db } = harness.app.provider;
    expect(await onEveryConnection(db, readStatus), 'before').to.satisfy((statuses: number[]) =>
      statuses.every((status) => status === 200),
    );
    await db.raw('ALTER TABLE verifications ADD COLUMN added_by_a_newer_version text');
    const statuses = await onEveryConnection(db, readStatus);
    expect(statuses).to.have.length((db.client as PoolOwner).pool.max);
    expect(statuses).to.deep.equal(statuses.map(() => 200));
  });

  it('answers 200 on every pooled connection after the type of a column it reads changes', async () => {
    const { db } = harness.app.provider;
    await onEveryConnection(db, readStatus);
    await db.raw('ALTER TABLE verifications ALTER COLUMN country TYPE varchar(2)');
    const statuses = await onEveryConnection(db, readStatus);
    expect(statuses).to.deep.equal(statuses.map(() => 200));
  });

  it('exchanges codes on every pooled connection after the type of a verification column the exchange reads changes', async () => {
    const { db } = harness.app.provider;
    const client = await harness.client();
    const connections = (db.client as PoolOwner).pool.max;
    const codes: string[] = [];
    for (let index = 0; index < 2 * connections; index += 1) codes.push((await authorize(harness.app, client)).code);
    const exchange = async () => (await requestToken(harness.app, { code: codes.shift()!, client })).status;
    expect(await onEveryConnection(db, exchange), 'before').to.satisfy((statuses: number[]) =>
      statuses.every((status) => status === 200),
    );
    await db.raw('ALTER TABLE verifications ALTER COLUMN uid TYPE varchar(64)');
    const statuses = await onEveryConnection(db, exchange);
    expect(statuses).to.deep.equal(statuses.map(() => 200));
  });

  it('answers 200 to every one of parallel readers while columns are added and changed', async () => {
    const { db } = harness.app.provider;
    const statuses: number[] = [];
    let altering = true;
    const reader = async () => {
      while (altering) statuses.push(await readStatus());
    };
    const answered = async (count: number) => {
      const until = statuses.length + count;
      while (statuses.length < until) await delay(5);
    };
    const readers = Array.from({ length: 8 }, reader);
    try {
      for (const change of [
        'ADD COLUMN under_load text',
        'ALTER COLUMN age_threshold TYPE bigint',
        'ADD COLUMN under_load_too integer DEFAULT 1',
        'ALTER COLUMN method TYPE varchar(64)',
      ]) {
        // Let every reader run the statement on the table as it is, then change it under them.
        await answered(16);
        await db.raw(`ALTER TABLE verifications ${change}`);
      }
      await answered(16);
    } finally {
      altering = false;
      await Promise.all(readers);
    }
    expect(
      statuses.filter((status) => status !== 200),
      `${statuses.length} answers`,
    ).to.deep.equal([]);
  });
});
