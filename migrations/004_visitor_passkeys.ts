import type { Knex } from 'knex';

export const step = 'expand';

/**
 * Passkeys for reuse: a visitor account may be a passkey alone (no username, no password), and holds any number of
 * discoverable WebAuthn credentials. Only what verifying a signature needs is kept: the public key, the signature
 * counter, the transports the browser reported, and the opaque user handle the authenticator returns.
 * The ceremony challenges live only while their interaction does (cascade from interaction_progress).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'ALTER TABLE visitor_accounts ALTER COLUMN username DROP NOT NULL, ALTER COLUMN password_hash DROP NOT NULL',
  );
  await knex.schema.createTable('visitor_passkeys', (t) => {
    t.bigIncrements('id');
    t.bigInteger('account_id').notNullable().references('visitor_accounts.id').onDelete('CASCADE');
    // base64url, as the browser reports it (rawId)
    t.text('credential_id').notNullable().unique();
    // base64url of the account's WebAuthn user.id: the same for every passkey of one account
    t.text('user_handle').notNullable();
    t.binary('public_key').notNullable();
    t.bigInteger('counter').notNullable().defaultTo(0);
    t.specificType('transports', 'text[]').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.index(['account_id']);
  });
  await knex.schema.createTable('passkey_ceremonies', (t) => {
    t.text('interaction_uid').notNullable().references('interaction_progress.uid').onDelete('CASCADE');
    t.text('purpose').notNullable().checkIn(['register', 'sign_in']);
    t.text('challenge').notNullable();
    t.text('user_handle');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['interaction_uid', 'purpose']);
  });
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
