import type { Knex } from 'knex';

export const step = 'expand';

/**
 * What a webmaster needs to debug a delivery (issue 33, docs/webhooks.md "Debugging a delivery"). Additive only: the
 * previous release keeps recording attempts without these columns.
 *
 * - `webhook_attempts.request_body`: the exact body this attempt sent (the signature covers these bytes).
 * - `webhook_attempts.response_body`: the first KiB of the receiver's answer, `response_truncated` when it was longer.
 *
 * Both live as long as their attempt, which lives as long as its message (privacy.md: delivered or given up +
 * VERIFICATION_RETENTION).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_attempts', (t) => {
    t.text('request_body');
    t.text('response_body');
    t.boolean('response_truncated');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_attempts', (t) => {
    t.dropColumn('request_body');
    t.dropColumn('response_body');
    t.dropColumn('response_truncated');
  });
}
