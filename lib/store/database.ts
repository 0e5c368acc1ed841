import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import v8 from 'node:v8';
import type { PGlite } from '@electric-sql/pglite';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { generatedSecretsFile } from '../config/secrets.js';
import type { Settings } from '../config/types.js';
import type { Logger } from '../log.js';
import { lockEmbedded } from './embedded-lock.js';
import { serveSnapshots } from './embedded-snapshot.js';
import { knexLog } from './knex-log.js';
import { ownerOnlyUmask, restrictToOwner } from './private-files.js';

export type Database = Knex;

/*
 * PGlite (and knex-pglite, which loads it again as CommonJS) is loaded only where an embedded database is opened: a
 * PostgreSQL deployment never uses it, and the two cost memory in every such server (docs/performance.md
 * "Measurements behind code choices").
 * knex-pglite is CommonJS, so `embedded()` stays synchronous (the tests call it) with a require of its own.
 */
const requireCommonJs = createRequire(import.meta.url);
const loadPGlite = async (): Promise<typeof PGlite> => (await import('@electric-sql/pglite')).PGlite;

// bigint ids and counts come back as numbers on both drivers: website ids stay well below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
/**
 * PGlite settings: int8 as numbers, and 16 MB of shared buffers instead of PostgreSQL's 128 MB: one process and small
 * tables need no more, and each halving cut a warm embedded server's RSS (docs/performance.md "Measurements behind
 * code choices").
 */
export const PGLITE_OPTIONS = {
  parsers: { 20: (value: string) => Number(value) },
  postgresqlconf: 'shared_buffers = 16MB',
};

/**
 * PGlite is PostgreSQL compiled to WebAssembly; V8 compiles it twice by default (a baseline, then optimised code for
 * hot functions), and the second copy costs resident memory. Baseline code only (Liftoff) uses less and is no slower
 * on our statements (docs/performance.md "Measurements behind code choices"), so it is chosen before the first
 * embedded database is instantiated. `--liftoff-only` turns the two tiering flags off only when it is read from the
 * command line: set at run time on Node 24 it left them on, and memory grew several times over, so they are set too. The flags concern
 * WebAssembly only; a PostgreSQL deployment never sets them.
 */
function compileWebAssemblyOnce(): void {
  v8.setFlagsFromString('--liftoff-only');
  v8.setFlagsFromString('--no-wasm-tier-up');
  v8.setFlagsFromString('--no-wasm-dynamic-tiering');
}

export interface DatabaseOptions {
  /** PostgreSQL URL; absent means the embedded database. */
  databaseUrl?: string | undefined;
  /** Folder of the embedded database files; absent means in memory (tests). */
  dataDir?: string | undefined;
  /** PostgreSQL limits (every wait is bounded); the defaults suit tests. */
  limits?: DatabaseLimits;
  /** where knex's warnings and the start-up permission fix are logged */
  log?: Logger;
}

export interface DatabaseLimits {
  poolMax: number;
  /** waiting for a pooled connection, and connecting */
  acquireTimeoutMs: number;
  /** statement_timeout on the server; the client gives up a little later in case the server does not answer at all */
  statementTimeoutMs: number;
}

const DEFAULT_LIMITS: DatabaseLimits = { poolMax: 10, acquireTimeoutMs: 5000, statementTimeoutMs: 10000 };

/**
 * A pooled connection is handed out again only once its last query was answered: a query given up at the client's
 * query timeout (a hung server, a network gone silent) may never be, and every later query on that connection would
 * wait behind it. Such a connection is closed, and the next query gets a new one.
 */
const answeredItsLastQuery = (connection: pg.Client): boolean =>
  (connection as unknown as { readyForQuery: boolean }).readyForQuery;

/** the client-side query timeout leaves the server this long to report its own statement_timeout first */
const CLIENT_GRACE_MS = 1000;

/** knex on PostgreSQL (pg) or on the embedded PGlite, which has one connection: every query in a transaction must use it. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const log = options.log ? { log: knexLog(options.log) } : {};
  if (options.databaseUrl) {
    const limits = options.limits ?? DEFAULT_LIMITS;
    return knexFactory({
      client: 'pg',
      connection: {
        connectionString: options.databaseUrl,
        connectionTimeoutMillis: limits.acquireTimeoutMs,
        statement_timeout: limits.statementTimeoutMs,
        query_timeout: limits.statementTimeoutMs + CLIENT_GRACE_MS,
      },
      pool: { min: 0, max: limits.poolMax, validate: answeredItsLastQuery },
      acquireConnectionTimeout: limits.acquireTimeoutMs,
      ...log,
    });
  }
  compileWebAssemblyOnce();
  const PGliteClass = await loadPGlite();
  if (!options.dataDir) return embedded(await PGliteClass.create(PGLITE_OPTIONS), log);
  const folder = resolve(options.dataDir);
  const widened = await restrictToOwner(folder);
  if (widened.length > 0) {
    options.log?.warn('DATA_DIR was readable by other users: restricted to the owner (folders 0700, files 0600)', {
      dataDir: folder,
      changed: widened.length,
    });
  }
  const unlock = await lockEmbedded(folder);
  // The hashes, sealed secrets and WAL in DATA_DIR are the owner's alone, also for files the database creates later.
  const restoreUmask = ownerOnlyUmask();
  try {
    const pgdata = resolve(folder, 'pgdata');
    const { createClusterApart } = await import('./embedded-cluster.js');
    await createClusterApart(pgdata, PGLITE_OPTIONS);
    const pglite = await PGliteClass.create({ ...PGLITE_OPTIONS, dataDir: pgdata });
    // PGlite unpacks a new cluster with chmod 0666, past the umask: restrict what it wrote, and again on closing.
    await restrictToOwner(folder);
    // A backup taken while this process runs is copied by this process (embedded-snapshot.ts).
    const stopSnapshots = await serveSnapshots(folder, pglite);
    // knex.destroy() closes the PGlite instance; the lock goes with it.
    const close = pglite.close.bind(pglite);
    pglite.close = async () => {
      await stopSnapshots();
      await close();
      await restrictToOwner(folder);
      restoreUmask();
      await unlock();
    };
    const db = embedded(pglite, log);
    // knex connects lazily and only destroys connections it made: connect now so destroy() always closes PGlite.
    await db.raw('select 1');
    return db;
  } catch (error) {
    restoreUmask();
    await unlock();
    throw error;
  }
}

/** A restore refused because DATA_DIR holds a database already: replacing one is the operator's decision, not ours. */
export class DatabaseExistsError extends Error {
  override name = 'DatabaseExistsError';
}

/**
 * Makes DATA_DIR hold the embedded database copied in `tar` (embedded-snapshot.ts), and the generated secrets that
 * came with it: refused while a process holds DATA_DIR (the lock, as for opening) and when DATA_DIR holds a database
 * or generated secrets already. Files private, as on opening.
 */
export async function restoreEmbedded(dataDir: string, tar: Blob, secretsFile: string | undefined): Promise<void> {
  const folder = resolve(dataDir);
  await restrictToOwner(folder);
  const unlock = await lockEmbedded(folder);
  const restoreUmask = ownerOnlyUmask();
  try {
    const pgdata = resolve(folder, 'pgdata');
    const secretsPath = generatedSecretsFile(folder);
    if (existsSync(pgdata) || (secretsFile !== undefined && existsSync(secretsPath)))
      throw new DatabaseExistsError(`${folder} holds a database already: restore into an empty DATA_DIR`);
    compileWebAssemblyOnce();
    const PGliteClass = await loadPGlite();
    const pglite = await PGliteClass.create({ ...PGLITE_OPTIONS, dataDir: pgdata, loadDataDir: tar });
    // Opened once: the copy's recovery has run, so the next start opens a clean database.
    await pglite.query('select 1');
    await pglite.close();
    if (secretsFile !== undefined) await writeFile(secretsPath, secretsFile, { mode: 0o600, flag: 'wx' });
    await restrictToOwner(folder);
  } finally {
    restoreUmask();
    await unlock();
  }
}

/** Wraps an existing PGlite instance (tests load one from a migrated template). */
export function embedded(pglite: PGlite, log: Pick<Knex.Config, 'log'> = {}): Database {
  const ClientPgLite = requireCommonJs('knex-pglite') as typeof import('knex-pglite');
  return knexFactory({
    ...log,
    client: ClientPgLite as unknown as typeof knexFactory.Client,
    dialect: 'postgres',
    connection: { pglite } as Knex.StaticConnectionConfig,
  });
}

/** The database pool's connections now. */
export interface PoolState {
  inUse: number;
  /** queries waiting for a connection */
  waiting: number;
  max: number;
}

/** What knex's pool (tarn) offers, as far as the metrics read it. */
interface Pool {
  max: number;
  numUsed(): number;
  numPendingAcquires(): number;
  on(event: 'acquireFail', listener: () => void): void;
  removeListener(event: 'acquireFail', listener: () => void): void;
}

const poolOf = (db: Database): Pool | undefined => (db.client as { pool?: Pool }).pool ?? undefined;

/** The pool's connections now (undefined once the database is closed). */
export function poolState(db: Database): PoolState | undefined {
  const pool = poolOf(db);
  return pool && { inUse: pool.numUsed(), waiting: pool.numPendingAcquires(), max: pool.max };
}

export interface DatabaseFailures {
  /** a statement failed; `sqlState` is PostgreSQL's error code when the server answered one */
  queryFailed(sqlState: string | undefined): void;
  /** no pooled connection within the acquire timeout, or a new connection failed */
  acquireFailed(): void;
}

/** Tells `failures` of every failed statement and every failed acquire, as they happen (in memory); returns the unwatch. */
export function watchFailures(db: Database, failures: DatabaseFailures): () => void {
  const onQueryError = (error: { code?: unknown }) =>
    failures.queryFailed(typeof error.code === 'string' ? error.code : undefined);
  const onAcquireFail = () => failures.acquireFailed();
  const pool = poolOf(db);
  db.on('query-error', onQueryError);
  pool?.on('acquireFail', onAcquireFail);
  return () => {
    db.off('query-error', onQueryError);
    pool?.removeListener('acquireFail', onAcquireFail);
  };
}

/** The PGlite instance under an embedded database (for its own snapshot, embedded-snapshot.ts). */
export const pgliteOf = (db: Database): PGlite => (db.client.config.connection as { pglite: PGlite }).pglite;

export function isEmbedded(db: Database): boolean {
  return db.client.config.client !== 'pg';
}

/** The database the configuration names (DATABASE_URL, else the embedded one in DATA_DIR), with its limits. */
export function openConfiguredDatabase(
  config: Pick<Settings, 'databaseUrl' | 'dataDir' | 'dbPoolMax' | 'dbAcquireTimeoutMs' | 'dbStatementTimeoutMs'>,
  log: Logger,
): Promise<Database> {
  return openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    limits: {
      poolMax: config.dbPoolMax,
      acquireTimeoutMs: config.dbAcquireTimeoutMs,
      statementTimeoutMs: config.dbStatementTimeoutMs,
    },
    log,
  });
}
