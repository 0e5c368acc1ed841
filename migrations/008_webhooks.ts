import type { Knex } from 'knex';

export const step = 'expand';

/**
 * Signed webhooks: each website's endpoints, the outbox of messages to deliver (written in the transaction of the
 * change it reports) and every delivery attempt. A verification's `verification.completed` message is written by a
 * trigger, inside the very statement that inserts the verification, and only for a website with an endpoint
 * subscribed to it: a flow issues no statement more (docs/decisions/webhooks.md "Webhooks from an outbox").
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhooks', (t) => {
    t.bigIncrements('id');
    t.bigInteger('website_id').notNullable().references('websites.id').onDelete('CASCADE');
    t.text('url').notNullable();
    t.specificType('events', 'text[]').notNullable();
    t.text('secret_sealed').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('disabled_at', { useTz: true });
    t.text('disabled_reason');
    t.index(['website_id']);
  });

  // next_attempt_at is null once a message is delivered or given up; while it is being sent it holds the lease's end.
  await knex.schema.createTable('webhook_messages', (t) => {
    t.bigIncrements('id');
    t.text('message_id').notNullable().unique();
    t.bigInteger('webhook_id').notNullable().references('webhooks.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.jsonb('payload').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('next_attempt_at', { useTz: true });
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('delivered_at', { useTz: true });
    t.timestamp('given_up_at', { useTz: true });
    t.index(['webhook_id', 'id']);
  });
  await knex.raw(
    'CREATE INDEX webhook_messages_due ON webhook_messages (next_attempt_at) WHERE next_attempt_at IS NOT NULL',
  );

  await knex.schema.createTable('webhook_attempts', (t) => {
    t.bigIncrements('id');
    t.bigInteger('message_id').notNullable().references('webhook_messages.id').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    t.timestamp('attempted_at', { useTz: true }).notNullable();
    t.integer('status');
    t.integer('duration_ms').notNullable();
    t.text('error');
    t.timestamp('next_retry_at', { useTz: true });
    // One row per attempt number: an attempt is recorded once, by the instance that claimed it.
    t.unique(['message_id', 'attempt']);
  });

  await knex.raw(`CREATE FUNCTION enqueue_verification_completed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO webhook_messages (message_id, webhook_id, type, payload, created_at, next_attempt_at)
      SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), hook.id, 'verification.completed',
             jsonb_build_object(
               'type', 'verification.completed',
               'timestamp', to_char(NEW.verified_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'data', jsonb_build_object(
                 'websiteId', NEW.website_id,
                 'environment', NEW.environment,
                 'challenge', NEW.method,
                 'outcome', CASE WHEN NEW.verified THEN 'passed' ELSE 'refused' END,
                 'result', jsonb_build_object(
                   'verified', NEW.verified,
                   'uid', NEW.uid,
                   'country', NEW.country,
                   'country_subdivision', NEW.country_subdivision,
                   'assurance_level', NEW.assurance_level,
                   'age_threshold', NEW.age_threshold,
                   'reused', NEW.reused,
                   'expires_at', floor(extract(epoch FROM NEW.expires_at))::bigint,
                   'expires_in', floor(extract(epoch FROM NEW.expires_at))::bigint - floor(extract(epoch FROM NEW.verified_at))::bigint))),
             NEW.verified_at, NEW.verified_at
        FROM webhooks hook
       WHERE hook.website_id = NEW.website_id AND hook.disabled_at IS NULL AND 'verification.completed' = ANY (hook.events);
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER verifications_webhook AFTER INSERT ON verifications
    FOR EACH ROW EXECUTE FUNCTION enqueue_verification_completed()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS verifications_webhook ON verifications');
  await knex.raw('DROP FUNCTION IF EXISTS enqueue_verification_completed()');
  await knex.schema.dropTableIfExists('webhook_attempts');
  await knex.schema.dropTableIfExists('webhook_messages');
  await knex.schema.dropTableIfExists('webhooks');
}
