import type { Knex } from 'knex';

export const step = 'expand';

/**
 * What a platform form that creates or regenerates something already did (lib/platform/once.ts): one row per
 * submitted form, so a repeat of the same submit lands where the first did instead of doing it again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('form_effects', (t) => {
    t.text('key_hash').primary();
    t.text('landing');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['created_at']);
  });
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
