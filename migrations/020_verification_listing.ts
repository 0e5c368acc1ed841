import type { Knex } from 'knex';

export const step = 'expand';

/**
 * Verifications one by one (issue 33, docs/verifications.md):
 * - `verifications.client_id`: the OAuth2 client the flow ran for, written by the insert that already records the
 *   row (null for rows written before);
 * - `flow_endings`: the flows that ended without a verification, each with an id of the same form as a
 *   verification's uid: `refused`, `abandoned` and `unavailable` written by the statement that already ends the
 *   interaction, `expired` by the sweep of expired interactions (never on a visitor's request). Counts and labels
 *   only: no personal data;
 * - an index per table for a website's list, newest first.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('verifications', (t) => {
    t.text('client_id');
  });
  await knex.raw('CREATE INDEX verifications_website_newest ON verifications (website_id, verified_at DESC, uid DESC)');
  await knex.schema.createTable('flow_endings', (t) => {
    t.bigIncrements('id');
    t.text('uid').notNullable().unique();
    t.bigInteger('website_id').notNullable().references('websites.id').onDelete('CASCADE');
    t.text('environment').notNullable().checkIn(['LIVE', 'TEST']);
    t.text('client_id').notNullable();
    t.text('outcome').notNullable().checkIn(['refused', 'abandoned', 'unavailable', 'expired']);
    t.text('challenge');
    t.timestamp('started_at', { useTz: true });
    t.timestamp('ended_at', { useTz: true }).notNullable();
    t.jsonb('policy').notNullable().defaultTo('[]');
  });
  await knex.raw('CREATE INDEX flow_endings_website_newest ON flow_endings (website_id, ended_at DESC, uid DESC)');
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
