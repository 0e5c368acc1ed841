import type { Knex } from 'knex';

export const step = 'expand';

/**
 * Website domain verification: the token the webmaster publishes (a DNS TXT record or a file
 * under /.well-known), created on first use, when the domain was proven (null: not verified) and when it was last looked at. A website's
 * domain cannot change, so a proof stays attached to the domain it was made for.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('websites', (t) => {
    t.text('domain_verification_token');
    t.timestamp('domain_verified_at', { useTz: true });
    t.timestamp('domain_checked_at', { useTz: true });
  });
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
