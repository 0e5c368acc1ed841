import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import pg from 'pg';
import { lockEmbedded } from './embedded-lock.js';

export type Database = Knex;

// bigint ids and counts come back as numbers on both drivers: website ids stay well below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
/**
 * PGlite settings: int8 as numbers, and 32 MB of shared buffers instead of PostgreSQL's 128 MB (measured: RSS of a
 * warm embedded server 361 → 253 MB; one process and small tables do not need more).
 */
export const PGLITE_OPTIONS = { parsers: { 20: (value: string) => Number(value) }, postgresqlconf: 'shared_buffers = 32MB' };

export interface DatabaseOptions {
  /** PostgreSQL URL; absent means the embedded database. */
  databaseUrl?: string | undefined;
  /** Folder of the embedded database files; absent means in memory (tests). */
  dataDir?: string | undefined;
  /** PostgreSQL pool size. */
  poolMax?: number;
}

/** knex on PostgreSQL (pg) or on the embedded PGlite, which has one connection: every query in a transaction must use it. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    return knexFactory({
      client: 'pg',
      connection: options.databaseUrl,
      pool: { min: 0, max: options.poolMax ?? 10 },
    });
  }
  if (!options.dataDir) return embedded(await PGlite.create(PGLITE_OPTIONS));
  const folder = resolve(options.dataDir);
  await mkdir(folder, { recursive: true });
  const unlock = await lockEmbedded(folder);
  try {
    const pglite = await PGlite.create({ ...PGLITE_OPTIONS, dataDir: resolve(folder, 'pgdata') });
    // knex.destroy() closes the PGlite instance; the lock goes with it.
    const close = pglite.close.bind(pglite);
    pglite.close = async () => {
      await close();
      await unlock();
    };
    const db = embedded(pglite);
    // knex connects lazily and only destroys connections it made: connect now so destroy() always closes PGlite.
    await db.raw('select 1');
    return db;
  } catch (error) {
    await unlock();
    throw error;
  }
}

/** Wraps an existing PGlite instance (tests load one from a migrated template). */
export function embedded(pglite: PGlite): Database {
  return knexFactory({
    client: ClientPgLite as unknown as typeof knexFactory.Client,
    dialect: 'postgres',
    connection: { pglite } as Knex.StaticConnectionConfig,
  });
}

export function isEmbedded(db: Database): boolean {
  return db.client.config.client !== 'pg';
}

