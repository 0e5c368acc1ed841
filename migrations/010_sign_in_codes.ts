import type { Knex } from 'knex';

export const step = 'expand';

/**
 * One-time sign-in codes mailed to a webmaster (lib/webmasters/sign-in-codes.ts): each bound to the browser that
 * asked for it, kept as digests only, used once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sign_in_codes', (t) => {
    t.bigIncrements('id');
    t.bigInteger('webmaster_id').notNullable().references('webmasters.id').onDelete('CASCADE');
    t.text('browser_hash').notNullable();
    t.text('code_hash').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.index(['browser_hash']);
    t.index(['expires_at']);
  });
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
