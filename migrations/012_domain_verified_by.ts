import type { Knex } from 'knex';

export const step = 'expand';

/**
 * How a website's domain was verified: `published` (the webmaster's token found in DNS or the /.well-known file) or
 * `operator` (the service's operator vouched for it, `age-provider website vouch-domain`); null while unverified.
 * Every domain verified so far was verified by its published token.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('websites', (t) => {
    t.text('domain_verified_by');
  });
  await knex('websites').whereNotNull('domain_verified_at').update({ domain_verified_by: 'published' });
  await knex.raw(`ALTER TABLE websites ADD CONSTRAINT websites_domain_verified_by_check CHECK (
    (domain_verified_at IS NULL AND domain_verified_by IS NULL)
    OR (domain_verified_at IS NOT NULL AND domain_verified_by IN ('published', 'operator')))`);
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
