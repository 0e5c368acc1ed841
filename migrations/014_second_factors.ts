import type { Knex } from 'knex';

export const step = 'expand';

/**
 * A webmaster's second factor (lib/webmasters/second-factors.ts): an authenticator app's TOTP secret, sealed (it must
 * be read back to check a code), with the last time step used so a code works once; and single-use recovery codes,
 * kept as SHA-256 digests. A platform session waiting for the second factor counts the wrong codes it was given.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webmaster_totp', (t) => {
    t.bigInteger('webmaster_id').primary().references('webmasters.id').onDelete('CASCADE');
    t.text('secret_sealed').notNullable();
    // null while being added: the secret counts only once a code from the app has been entered
    t.timestamp('confirmed_at', { useTz: true });
    t.bigInteger('last_step').notNullable().defaultTo(-1);
    t.timestamp('created_at', { useTz: true }).notNullable();
  });
  await knex.schema.createTable('webmaster_recovery_codes', (t) => {
    t.bigIncrements('id');
    t.bigInteger('webmaster_id').notNullable().references('webmasters.id').onDelete('CASCADE');
    t.text('code_hash').notNullable();
    t.timestamp('used_at', { useTz: true });
    t.index(['webmaster_id']);
  });
  await knex.schema.alterTable('platform_sessions', (t) => {
    t.integer('factor_attempts').notNullable().defaultTo(0);
  });
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
