import type { Knex } from 'knex';

export const step = 'expand';

/** The whole data model. Forward only. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webmasters', (t) => {
    t.bigIncrements('id');
    t.text('email').notNullable().unique();
    t.text('password_hash').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('api_tokens', (t) => {
    t.bigIncrements('id');
    t.bigInteger('webmaster_id').notNullable().references('webmasters.id').onDelete('CASCADE');
    t.text('token_hash').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
  });
  // One active token per webmaster: generating a new one revokes the old.
  await knex.raw('CREATE UNIQUE INDEX api_tokens_one_active ON api_tokens (webmaster_id) WHERE revoked_at IS NULL');

  await knex.schema.createTable('platform_sessions', (t) => {
    t.text('id_hash').primary();
    t.bigInteger('webmaster_id').notNullable().references('webmasters.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
  });

  await knex.schema.createTable('websites', (t) => {
    t.bigIncrements('id');
    t.bigInteger('webmaster_id').notNullable().references('webmasters.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('domain').notNullable();
    t.text('language').notNullable().defaultTo('auto');
    t.jsonb('regions').notNullable().defaultTo('[]');
    t.jsonb('challenges').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['webmaster_id']);
  });

  await knex.schema.createTable('website_keys', (t) => {
    t.bigInteger('website_id').notNullable().references('websites.id').onDelete('CASCADE');
    t.text('environment').notNullable().checkIn(['LIVE', 'TEST']);
    t.text('public_key').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['website_id', 'environment']);
  });

  await knex.schema.createTable('oauth2_configs', (t) => {
    t.bigIncrements('id');
    t.bigInteger('website_id').notNullable().references('websites.id').onDelete('CASCADE');
    t.text('environment').notNullable().checkIn(['LIVE', 'TEST']);
    t.text('status').notNullable().checkIn(['ACTIVE', 'DISABLED']);
    t.jsonb('redirect_uris').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['website_id', 'environment']);
  });

  // The current pair has no superseded_at; a superseded pair is honoured until valid_until.
  await knex.schema.createTable('oauth2_credentials', (t) => {
    t.bigIncrements('id');
    t.bigInteger('config_id').notNullable().references('oauth2_configs.id').onDelete('CASCADE');
    t.text('client_id').notNullable().unique();
    t.text('secret_sealed').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('superseded_at', { useTz: true });
    t.timestamp('valid_until', { useTz: true });
    t.index(['config_id']);
  });
  await knex.raw(
    'CREATE UNIQUE INDEX oauth2_credentials_one_current ON oauth2_credentials (config_id) WHERE superseded_at IS NULL',
  );

  // An age proof a subject (visitor account or anonymous browser session) may reuse.
  await knex.schema.createTable('age_proofs', (t) => {
    t.bigIncrements('id');
    t.text('subject').notNullable();
    t.text('method').notNullable();
    t.text('assurance_level').notNullable();
    t.integer('age_threshold').notNullable();
    t.text('environment').notNullable().checkIn(['LIVE', 'TEST']);
    t.timestamp('proven_at', { useTz: true }).notNullable();
    t.timestamp('reusable_until', { useTz: true }).notNullable();
    t.index(['subject', 'reusable_until']);
  });

  await knex.schema.createTable('verifications', (t) => {
    t.bigIncrements('id');
    t.text('uid').notNullable().unique();
    t.bigInteger('website_id').notNullable().references('websites.id').onDelete('CASCADE');
    t.text('environment').notNullable().checkIn(['LIVE', 'TEST']);
    t.text('grant_id').unique();
    t.text('method').notNullable();
    t.text('assurance_level').notNullable().checkIn(['STANDARD', 'ENHANCED', 'STRICT']);
    t.integer('age_threshold').notNullable();
    t.specificType('country', 'char(2)').notNullable();
    t.text('country_subdivision');
    t.boolean('verified').notNullable();
    t.boolean('reused').notNullable().defaultTo(false);
    t.timestamp('verified_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
  });

  await knex.schema.createTable('visitor_accounts', (t) => {
    t.bigIncrements('id');
    t.text('username').notNullable();
    t.text('password_hash').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE UNIQUE INDEX visitor_accounts_username ON visitor_accounts (lower(username))');

  await knex.schema.createTable('tickets', (t) => {
    t.bigIncrements('id');
    t.text('batch_id').notNullable();
    t.text('code_hash').notNullable().unique();
    t.text('assurance_level').notNullable().checkIn(['STANDARD', 'ENHANCED', 'STRICT']);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('redeemed_at', { useTz: true });
    t.index(['batch_id']);
  });

  await knex.schema.createTable('oidc_payloads', (t) => {
    t.text('type').notNullable();
    t.text('id').notNullable();
    t.jsonb('payload').notNullable();
    t.text('grant_id');
    t.text('uid');
    t.text('user_code');
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('consumed_at', { useTz: true });
    t.primary(['type', 'id']);
    t.index(['grant_id']);
    t.index(['uid']);
    t.index(['expires_at']);
  });

  // The schema rate-limiter-flexible expects (tableCreated: true).
  await knex.schema.createTable('rate_limits', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire');
  });
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
