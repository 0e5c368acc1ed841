import type { Knex } from 'knex';

export const step = 'expand';

/**
 * Statistics a webmaster can use (issue 33, docs/statistics.md): the daily aggregates gain the funnel's steps that
 * leave no row of their own (flows whose prompt was accepted, whose check began, refused at least once, returned to
 * the website with a verification) and the verifications per ISO 3166-2 subdivision. Additive: the days rolled up
 * before hold zeros and `{}`, and an instance of the previous version keeps merging its own columns, untouched by
 * these.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('statistics_daily', (t) => {
    t.integer('accepted').notNullable().defaultTo(0);
    t.integer('chosen').notNullable().defaultTo(0);
    t.integer('refused_flows').notNullable().defaultTo(0);
    t.integer('returned').notNullable().defaultTo(0);
    t.jsonb('by_subdivision').notNullable().defaultTo('{}');
  });
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
