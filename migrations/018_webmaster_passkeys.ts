import type { Knex } from 'knex';

/** Expand only (docs/upgrading.md): two new tables the previous release never reads. */
export const step = 'expand';

/**
 * Passkeys as a webmaster's second factor (lib/webmasters/passkeys.ts): what checking an assertion needs (the public
 * key, the signature counter, the transports, the user handle every passkey of one webmaster shares) and the name
 * the security page shows. A ceremony's challenge lives with the platform session that asked for it: a new session
 * (the second factor given, a sign-out) takes its challenges with it. Expand only: the previous release ignores both.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webmaster_passkeys', (t) => {
    t.bigIncrements('id');
    t.bigInteger('webmaster_id').notNullable().references('webmasters.id').onDelete('CASCADE');
    // base64url, as the browser reports it (rawId)
    t.text('credential_id').notNullable().unique();
    t.text('user_handle').notNullable();
    t.binary('public_key').notNullable();
    t.bigInteger('counter').notNullable().defaultTo(0);
    t.specificType('transports', 'text[]').notNullable().defaultTo('{}');
    t.text('name').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('last_used_at', { useTz: true });
    t.index(['webmaster_id']);
  });
  await knex.schema.createTable('webmaster_passkey_ceremonies', (t) => {
    t.text('session_hash').notNullable().references('platform_sessions.id_hash').onDelete('CASCADE');
    t.text('purpose').notNullable().checkIn(['register', 'sign_in']);
    t.text('challenge').notNullable();
    t.text('user_handle');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['session_hash', 'purpose']);
  });
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
