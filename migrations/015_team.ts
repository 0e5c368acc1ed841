import type { Knex } from 'knex';

/** Contract step (docs/upgrading.md): it drops the unique index that kept one active API token per account, which builds before it relied on. */
export const step = 'contract';

/**
 * Teams, named API keys and a way out (docs/team.md, docs/decisions/team.md).
 *
 * - An account is the webmaster row that owns the websites (websites.webmaster_id, unchanged, so every tenancy check
 *   stays in its query); `account_members` says who may act on it and with which role. Every webmaster is the owner of
 *   its own account from its first moment: a trigger adds that membership whatever path inserts the row (registration,
 *   the CLI, an invitation), and existing webmasters get theirs here.
 * - `account_invitations` holds a mailed, single-use invitation by the SHA-256 of its link's token only.
 * - `platform_sessions.account_id` is the account a session acts on (null: the webmaster's own).
 * - `api_tokens` become named keys: several per account (the one-active index goes), each made by a member
 *   (`member_id`; existing tokens: the account's own webmaster), read-only or read-write, optionally for one website,
 *   optionally expiring.
 * - `webmasters.disabled_at`: the operator's switch; a disabled account's sessions and keys stop at once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webmasters', (t) => {
    t.timestamp('disabled_at', { useTz: true });
  });
  await knex.schema.createTable('account_members', (t) => {
    t.bigInteger('account_id').notNullable().references('webmasters.id').onDelete('CASCADE');
    t.bigInteger('webmaster_id').notNullable().references('webmasters.id').onDelete('CASCADE');
    t.text('role').notNullable().checkIn(['owner', 'admin', 'developer', 'viewer']);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['account_id', 'webmaster_id']);
    t.index(['webmaster_id']);
  });
  await knex.raw(`INSERT INTO account_members (account_id, webmaster_id, role, created_at)
    SELECT id, id, 'owner', created_at FROM webmasters`);
  await knex.raw(`CREATE FUNCTION add_founding_owner() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO account_members (account_id, webmaster_id, role, created_at) VALUES (NEW.id, NEW.id, 'owner', NEW.created_at);
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER webmasters_founding_owner AFTER INSERT ON webmasters
    FOR EACH ROW EXECUTE FUNCTION add_founding_owner()`);

  await knex.schema.createTable('account_invitations', (t) => {
    t.bigIncrements('id');
    t.bigInteger('account_id').notNullable().references('webmasters.id').onDelete('CASCADE');
    t.text('email').notNullable();
    t.text('role').notNullable().checkIn(['owner', 'admin', 'developer', 'viewer']);
    t.text('token_hash').notNullable().unique();
    t.bigInteger('invited_by').references('webmasters.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('accepted_at', { useTz: true });
    t.index(['account_id']);
  });

  await knex.schema.alterTable('platform_sessions', (t) => {
    t.bigInteger('account_id').references('webmasters.id').onDelete('SET NULL');
  });

  await knex.raw('DROP INDEX api_tokens_one_active');
  await knex.schema.alterTable('api_tokens', (t) => {
    t.text('name').notNullable().defaultTo('API token');
    t.bigInteger('member_id').references('webmasters.id').onDelete('CASCADE');
    t.boolean('read_only').notNullable().defaultTo(false);
    t.bigInteger('website_id').references('websites.id').onDelete('CASCADE');
    t.timestamp('expires_at', { useTz: true });
    t.index(['webmaster_id']);
  });
  await knex('api_tokens').update({ member_id: knex.ref('webmaster_id') });
  await knex.schema.alterTable('api_tokens', (t) => {
    t.bigInteger('member_id').notNullable().alter();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_tokens', (t) => {
    t.dropIndex(['webmaster_id']);
    t.dropColumns('name', 'member_id', 'read_only', 'website_id', 'expires_at');
  });
  await knex('api_tokens')
    .whereNull('revoked_at')
    .whereNotIn('id', knex('api_tokens').max('id').whereNull('revoked_at').groupBy('webmaster_id'))
    .update('revoked_at', knex.fn.now());
  await knex.raw('CREATE UNIQUE INDEX api_tokens_one_active ON api_tokens (webmaster_id) WHERE revoked_at IS NULL');
  await knex.schema.alterTable('platform_sessions', (t) => {
    t.dropColumn('account_id');
  });
  await knex.schema.dropTableIfExists('account_invitations');
  await knex.raw('DROP TRIGGER IF EXISTS webmasters_founding_owner ON webmasters');
  await knex.raw('DROP FUNCTION IF EXISTS add_founding_owner()');
  await knex.schema.dropTableIfExists('account_members');
  await knex.schema.alterTable('webmasters', (t) => {
    t.dropColumn('disabled_at');
  });
}
