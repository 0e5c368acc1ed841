import type { Knex } from 'knex';

export const step = 'expand';

/**
 * The audit trail: every change to a website (its keys, OAuth2 configurations, webhooks, policy) and to a webmaster's
 * API token, append-only, in hash chains (lib/audit/chain.ts). One chain per website, and one per webmaster account
 * for what belongs to no website; `audit_heads` holds each chain's last entry, so that removing the newest entries
 * shows too, and its row is the lock that puts a chain's appends one after the other.
 * No foreign keys: the record of a change outlives what it describes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_entries', (t) => {
    t.bigIncrements('id');
    t.text('chain').notNullable();
    t.integer('seq').notNullable();
    t.bigInteger('webmaster_id').notNullable();
    t.bigInteger('website_id');
    t.timestamp('at', { useTz: true }).notNullable();
    t.text('actor_type').notNullable().checkIn(['webmaster', 'api_token', 'operator']);
    t.text('actor_id').notNullable();
    t.text('address');
    t.text('action').notNullable();
    t.jsonb('before');
    t.jsonb('after');
    t.text('previous_hash').notNullable();
    t.text('hash').notNullable();
    t.unique(['chain', 'seq']);
    t.index(['website_id', 'id']);
  });
  await knex.schema.createTable('audit_heads', (t) => {
    t.text('chain').primary();
    t.integer('seq').notNullable();
    t.text('hash').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('audit_heads');
  await knex.schema.dropTableIfExists('audit_entries');
}
