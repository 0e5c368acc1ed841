import type { Knex } from 'knex';

export const step = 'expand';

/**
 * The evidence pack (issue 33, docs/evidence.md):
 * - `statistics_daily.by_level`: verifications per assurance level, counted by the rollup with the rest of the day
 *   (verifications are deleted after their retention, the counts stay); days rolled up before hold `{}`;
 * - `eu_av_trust`: each trust eu_av took into use (the operator's anchor files and the trusted list's anchors, its
 *   sequence number and issue date), one row per change, written by the instance that made it: an export names
 *   the trust in force over a past period, which no running instance remembers.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('statistics_daily', (t) => {
    t.jsonb('by_level').notNullable().defaultTo('{}');
  });
  await knex.schema.createTable('eu_av_trust', (t) => {
    t.bigIncrements('id');
    t.timestamp('in_force_from', { useTz: true }).notNullable();
    // SHA-256 of the canonical trust: an instance records a trust only when it differs from the newest row.
    t.text('digest').notNullable();
    t.jsonb('trust').notNullable();
  });
  await knex.raw('CREATE INDEX eu_av_trust_newest ON eu_av_trust (in_force_from DESC, id DESC)');
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
