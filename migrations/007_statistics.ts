import type { Knex } from 'knex';

export const step = 'expand';

/**
 * Statistics: daily aggregates per website and environment (lib/statistics), kept after the verifications they count
 * are swept, and holding no personal data: counts, counts per challenge and per country, and a histogram of the
 * seconds from a flow's start to its result. `verifications.started_at` (when the flow began) is written by the
 * statement that already inserts the row; `statistics_rollup` remembers the last verification counted.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('verifications', (t) => {
    t.timestamp('started_at', { useTz: true });
  });
  await knex.schema.createTable('statistics_daily', (t) => {
    t.bigInteger('website_id').notNullable().references('websites.id').onDelete('CASCADE');
    t.text('environment').notNullable().checkIn(['LIVE', 'TEST']);
    t.date('day').notNullable();
    t.integer('started').notNullable().defaultTo(0);
    t.integer('passed').notNullable().defaultTo(0);
    t.integer('refused').notNullable().defaultTo(0);
    t.integer('abandoned').notNullable().defaultTo(0);
    t.integer('reused').notNullable().defaultTo(0);
    t.jsonb('by_challenge').notNullable().defaultTo('{}');
    t.jsonb('by_country').notNullable().defaultTo('{}');
    t.jsonb('seconds_to_result').notNullable().defaultTo('{}');
    t.primary(['website_id', 'environment', 'day']);
  });
  await knex.schema.createTable('statistics_rollup', (t) => {
    t.text('source').primary();
    t.bigInteger('last_id').notNullable();
  });
  await knex('statistics_rollup').insert({ source: 'verifications', last_id: 0 });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('statistics_rollup');
  await knex.schema.dropTableIfExists('statistics_daily');
  await knex.schema.alterTable('verifications', (t) => {
    t.dropColumn('started_at');
  });
}
