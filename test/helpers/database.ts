import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import knexFactory from 'knex';
import { embedded, PGLITE_OPTIONS, type Database } from '../../lib/store/database.js';
import { migrate } from '../../lib/store/migrate.js';

export interface TestDatabase {
  db: Database;
  /** the database's own URL on PostgreSQL; undefined on the embedded database */
  url: string | undefined;
  drop(): Promise<void>;
}

let template: Promise<File | Blob> | undefined;

/** A migrated embedded database loaded from a template dump (0.3 s instead of a 2 s cold start plus migrations). */
async function embeddedDatabase(): Promise<TestDatabase> {
  template ??= (async () => {
    const pglite = await PGlite.create(PGLITE_OPTIONS);
    const db = embedded(pglite);
    await migrate(db);
    const dump = await pglite.dumpDataDir('none');
    await db.destroy();
    return dump;
  })();
  const pglite = await PGlite.create({ ...PGLITE_OPTIONS, loadDataDir: await template });
  const db = embedded(pglite);
  return { db, url: undefined, drop: () => db.destroy() };
}

/** A fresh, migrated PostgreSQL database created next to DATABASE_URL's and dropped afterwards. */
async function postgresDatabase(adminUrl: string): Promise<TestDatabase> {
  const name = `ap_test_${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = knexFactory({ client: 'pg', connection: url.toString(), pool: { min: 0, max: 10 } });
  await migrate(db);
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.destroy();
      await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.destroy();
    },
  };
}

/** A database of its own for one test file: PostgreSQL when DATABASE_URL is set (CI runs both), else embedded. */
export function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.DATABASE_URL;
  return adminUrl ? postgresDatabase(adminUrl) : embeddedDatabase();
}
