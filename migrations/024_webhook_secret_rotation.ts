import type { Knex } from 'knex';

export const step = 'expand';

/**
 * A webhook's signing secret rotated with an overlap (issue 33, docs/webhooks.md "Rotating the secret"). Additive
 * only: the previous release keeps signing with `secret_sealed` alone, which is the new secret after a rotation.
 *
 * - `webhooks.previous_secret_sealed`: the secret replaced by the last rotation, sealed like the current one; it still
 *   signs, beside the current one, until `previous_secret_expires_at`. Null when there was no rotation, or one without
 *   an overlap.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhooks', (t) => {
    t.text('previous_secret_sealed');
    t.timestamp('previous_secret_expires_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhooks', (t) => {
    t.dropColumn('previous_secret_sealed');
    t.dropColumn('previous_secret_expires_at');
  });
}
