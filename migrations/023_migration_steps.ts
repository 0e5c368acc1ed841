import type { Knex } from 'knex';

export const step = 'expand';

/**
 * What each applied migration is, for the builds that do not know it (docs/upgrading.md, lib/store/migrate.ts): an
 * `expand` step leaves everything an older build reads and writes in place, so that build may keep serving on it; a
 * `contract` step does not. A build that finds migrations it does not know reads their rows here to decide whether
 * it may start. Rows are written by every build after migrating, for every migration it knows (`recorded_by`: that
 * build's version), so a migration applied before this table existed is recorded by the next start.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('migration_steps', (t) => {
    t.text('name').primary();
    t.text('step').notNullable().checkIn(['expand', 'contract']);
    t.text('recorded_by').notNullable();
  });
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
