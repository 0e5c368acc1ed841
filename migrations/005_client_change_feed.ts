import type { Knex } from 'knex';

const TABLES = ['oauth2_configs', 'oauth2_credentials', 'websites', 'website_keys'];

export const step = 'expand';

/**
 * Every instance caches client lookups (lib/websites/client-cache.ts): any write to what a client resolves from
 * notifies `age_provider_clients`, so each instance forgets its cache within moments of the commit. Statement-level
 * triggers: one notification per statement, sent only when its transaction commits.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE FUNCTION notify_client_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('age_provider_clients', TG_TABLE_NAME);
      RETURN NULL;
    END $$`);
  for (const table of TABLES) {
    await knex.raw(`CREATE TRIGGER ${table}_client_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table}
      FOR EACH STATEMENT EXECUTE FUNCTION notify_client_change()`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES) await knex.raw(`DROP TRIGGER IF EXISTS ${table}_client_change ON ${table}`);
  await knex.raw('DROP FUNCTION IF EXISTS notify_client_change()');
}
