import type { Knex } from 'knex';

export const step = 'expand';

/**
 * Statistics count each verification once by a mark, not by id (issue 37): ids are taken before commit, so a row
 * with a lower id that commits after a higher one was never counted by "id above the last one counted".
 * `verifications.counted` is set by the rollup in the statement that reads the row (lib/statistics/store.ts); a row
 * its snapshot cannot see yet keeps `false` and is counted by a later rollup. The partial index holds only the rows
 * still to count, so the rollup never scans the table.
 *
 * Under the rollup's lock on `statistics_rollup`: every row the id-based rollup has passed is marked counted (the
 * rows it missed can no longer be told apart; they stay uncounted, as they were), and `last_id` becomes the largest
 * bigint, so an instance of the previous version still running during a rolling deploy counts nothing more (its
 * `id > last_id` selects no row) instead of counting a second time what this version counts.
 */
export async function up(knex: Knex): Promise<void> {
  // The rollup's lock first, then the table's, in the order a rollup takes them (no deadlock with a running one).
  const state = await knex('statistics_rollup')
    .where('source', 'verifications')
    .forUpdate()
    .first<{ last_id: string | number } | undefined>('last_id');
  await knex.schema.alterTable('verifications', (t) => {
    t.boolean('counted').notNullable().defaultTo(false);
  });
  if (state) await knex('verifications').where('id', '<=', state.last_id).update({ counted: true });
  await knex('statistics_rollup')
    .where('source', 'verifications')
    .update({ last_id: knex.raw('9223372036854775807') });
  await knex.raw('CREATE INDEX verifications_uncounted ON verifications (id) WHERE NOT counted');
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
