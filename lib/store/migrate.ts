import type { Knex } from 'knex';
import { migrations } from '../../migrations/index.js';
import type { Database } from './database.js';

const source: Knex.MigrationSource<string> = {
  getMigrations: async () => migrations.map(([name]) => name),
  getMigrationName: (name) => name,
  getMigration: async (name) => {
    const found = migrations.find(([candidate]) => candidate === name);
    if (!found) throw new Error(`unknown migration ${name}`);
    const migration = found[1];
    return {
      // Each migration runs in its own transaction: a schema change on a large table may take longer than
      // DB_STATEMENT_TIMEOUT_MS, which bounds the requests, so it is lifted for that transaction only.
      up: async (knex: Knex) => {
        await knex.raw('set local statement_timeout = 0');
        await migration.up(knex);
      },
      down: (knex: Knex) => migration.down(knex),
    };
  },
};

/** Applies pending migrations; returns the names applied. */
export async function migrate(db: Database): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource: source })) as [number, string[]];
  return applied;
}
