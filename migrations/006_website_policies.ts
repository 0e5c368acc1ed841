import type { Knex } from 'knex';

export const step = 'expand';

/**
 * Policies (docs/policies.md): each website's own rules, read with the website wherever a client resolves (so they
 * ride in the client cache and cost no statement of their own), and on each verification the rules that applied
 * (presets with their versions, or the website's own rule), for the website, an auditor and the signed result.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('websites', (t) => {
    t.jsonb('policy_rules').notNullable().defaultTo('[]');
  });
  await knex.schema.alterTable('verifications', (t) => {
    t.jsonb('policy').notNullable().defaultTo('[]');
  });
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
