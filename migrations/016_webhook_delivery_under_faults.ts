import type { Knex } from 'knex';

export const step = 'expand';

/**
 * Webhook delivery under faults (issue 37, docs/decisions/webhooks.md "Delivery under faults"). Additive only: the
 * previous release keeps running on this schema (it ignores the new columns and still claims and records as before).
 *
 * - `webhooks.backoff_until` / `backoff_ms`: an endpoint that timed out or failed is not claimed from until then; the
 *   length doubles with each failure and is cleared by a success. `failing_since`: the first failure since the last
 *   success; an endpoint failing for WEBHOOK_DISABLE_AFTER_HOURS is disabled.
 * - `webhook_messages.given_up_reason`: why a message was given up without its last attempt (endpoint disabled,
 *   backlog over its bound). The partial index on (webhook_id, next_attempt_at) lets each claim take an endpoint's
 *   oldest due messages without reading any other endpoint's, and counts each endpoint's backlog.
 * - `webhook_sequences`: one counter per website. Each event gets the next number, under the counter row's lock,
 *   so numbers follow the order in which the website's events committed (the payload's `sequence`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhooks', (t) => {
    t.timestamp('backoff_until', { useTz: true });
    t.integer('backoff_ms');
    t.timestamp('failing_since', { useTz: true });
  });
  await knex.schema.alterTable('webhook_messages', (t) => {
    t.text('given_up_reason');
  });
  await knex.raw(
    `CREATE INDEX webhook_messages_pending ON webhook_messages (webhook_id, next_attempt_at)
      WHERE next_attempt_at IS NOT NULL`,
  );
  await knex.schema.createTable('webhook_sequences', (t) => {
    t.bigInteger('website_id').primary().references('websites.id').onDelete('CASCADE');
    t.bigInteger('last_sequence').notNullable();
  });

  // The trigger of migration 008, with the website's next sequence number in the payload; the counter is taken only
  // for a website with an endpoint subscribed, so a flow without webhooks locks nothing more.
  await knex.raw(`CREATE OR REPLACE FUNCTION enqueue_verification_completed() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      next_sequence bigint;
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM webhooks hook WHERE hook.website_id = NEW.website_id AND hook.disabled_at IS NULL
                        AND 'verification.completed' = ANY (hook.events)) THEN
        RETURN NULL;
      END IF;
      INSERT INTO webhook_sequences AS counter (website_id, last_sequence) VALUES (NEW.website_id, 1)
        ON CONFLICT (website_id) DO UPDATE SET last_sequence = counter.last_sequence + 1
        RETURNING last_sequence INTO next_sequence;
      INSERT INTO webhook_messages (message_id, webhook_id, type, payload, created_at, next_attempt_at)
      SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), hook.id, 'verification.completed',
             jsonb_build_object(
               'type', 'verification.completed',
               'timestamp', to_char(NEW.verified_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'sequence', next_sequence,
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
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
