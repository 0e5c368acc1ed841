import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import { expect } from 'chai';
import knexFactory from 'knex';
import { isDatabaseUnavailable } from '../../lib/store/unavailable.js';
import { createTestDatabase } from '../helpers/database.js';

const failureOf = async (query: () => Promise<unknown>): Promise<unknown> =>
  query().then(
    () => undefined,
    (error: unknown) => error,
  );

/** A port nothing listens on: bound, read, released. */
async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const withCode = (code: string) => Object.assign(new Error(code), { code });

describe('isDatabaseUnavailable: one classifier for "the database cannot answer now"', function () {
  this.timeout(180_000);

  it('recognises a PostgreSQL server that is not listening', async () => {
    const db = knexFactory({
      client: 'pg',
      connection: `postgres://postgres@127.0.0.1:${await unusedPort()}/none`,
      pool: { min: 0, max: 1 },
      acquireConnectionTimeout: 2000,
    });
    try {
      expect(isDatabaseUnavailable(await failureOf(() => db.raw('select 1')))).to.equal(true);
    } finally {
      await db.destroy();
    }
  });

  it('recognises a closed embedded database, a closed pool and a pool acquisition timeout', async () => {
    const database = await createTestDatabase();
    try {
      const { db } = database;
      await db.raw('select 1');
      const { pglite } = db.client.config.connection as { pglite?: PGlite };
      if (pglite) {
        await pglite.close();
        expect(isDatabaseUnavailable(await failureOf(() => db.raw('select 1'))), 'PGlite closed').to.equal(true);
      }
      await db.destroy().catch(() => undefined);
      expect(isDatabaseUnavailable(await failureOf(() => db.raw('select 1'))), 'pool closed').to.equal(true);
    } finally {
      await database.drop().catch(() => undefined);
    }
    expect(isDatabaseUnavailable(new knexFactory.KnexTimeoutError('Knex: Timeout acquiring a connection.'))).to.equal(
      true,
    );
  });

  it('recognises shutdown, connection-class and timeout SQLSTATEs, socket errors and the request deadline, also as a cause', () => {
    for (const code of [
      '57P01',
      '57P02',
      '57P03',
      '08006',
      '08001',
      '57014',
      'ECONNREFUSED',
      'ECONNRESET',
      'REQUEST_DEADLINE',
    ]) {
      expect(isDatabaseUnavailable(withCode(code)), code).to.equal(true);
    }
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: withCode('ECONNRESET') }))).to.equal(true);
    expect(isDatabaseUnavailable(new AggregateError([withCode('ECONNREFUSED')]))).to.equal(true);
    // pg's own words when it gives up on a query the server never answered (its query_timeout)
    expect(isDatabaseUnavailable(new Error('Query read timeout'))).to.equal(true);
  });

  it('leaves defects alone: bad SQL, constraint violations, plain errors, non-errors', async () => {
    const database = await createTestDatabase();
    try {
      expect(isDatabaseUnavailable(await failureOf(() => database.db.raw('selec 1')))).to.equal(false);
      expect(isDatabaseUnavailable(await failureOf(() => database.db.raw("select 'a'::int")))).to.equal(false);
    } finally {
      await database.drop();
    }
    for (const value of [withCode('23505'), withCode('42601'), new Error('boom'), 'text', undefined, null, 42]) {
      expect(isDatabaseUnavailable(value), String(value)).to.equal(false);
    }
  });
});
