import type { Knex } from 'knex';

export const step = 'expand';

/**
 * Where a visitor is in one authorization (keyed by the oidc-provider interaction uid): consent given,
 * visitor account signed in, the verification waiting to be handed over, and the running challenge's
 * sealed private state. Rows die with the interaction (expires_at) and are swept.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('interaction_progress', (t) => {
    t.text('uid').primary();
    t.timestamp('accepted_at', { useTz: true });
    t.bigInteger('account_id').references('visitor_accounts.id').onDelete('SET NULL');
    t.text('verification_uid').references('verifications.uid').onDelete('SET NULL');
    t.text('challenge');
    t.text('challenge_state_sealed');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['expires_at']);
  });
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
