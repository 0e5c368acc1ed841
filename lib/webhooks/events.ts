import type { Change } from '../changes.js';
import type { Queryable } from '../websites/ownership.js';

/** Every event a webhook may subscribe to; `verification.completed` is written by the database (migrations/008_webhooks.ts). */
export const WEBHOOK_EVENTS = [
  'verification.completed',
  'website.updated',
  'key.regenerated',
  'oauth2.updated',
  'oauth2.credentials.regenerated',
  'webhook.disabled',
  'webhook.test',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The events a webmaster subscribes to; `webhook.test` is always sent to the endpoint it tests. */
export const SUBSCRIBABLE_EVENTS = WEBHOOK_EVENTS.filter((event) => event !== 'webhook.test');

/** The body every endpoint receives (Standard Webhooks: type, timestamp, data; and the website's event number). */
export interface WebhookPayload {
  type: WebhookEvent;
  timestamp: string;
  /** set by the database as the message is written: the website's events numbered in the order they committed */
  sequence?: number;
  data: Record<string, unknown>;
}

const payloadOf = (websiteId: number, type: WebhookEvent, data: Record<string, unknown>, now: Date): string =>
  JSON.stringify({ type, timestamp: now.toISOString(), data: { websiteId, ...data } } satisfies WebhookPayload);

/**
 * Writes the message for each endpoint the caller's condition selects (`WHERE` on `webhooks hook`, its values after the
 * website id). The website's next sequence number is taken under its counter row's lock, held until the caller
 * commits: numbers follow the order in which the website's events commit. Message ids (`webhook-id`, the receiver's
 * idempotency key) are made like the database trigger's (migrations/016_webhook_delivery_under_faults.ts).
 */
const insertMessages = async (
  q: Queryable,
  websiteId: number,
  type: WebhookEvent,
  payload: string,
  now: Date,
  condition: string,
  values: ReadonlyArray<string | number>,
): Promise<unknown[]> =>
  (
    await q.raw<{ rows: unknown[] }>(
      `WITH counter AS (
         INSERT INTO webhook_sequences AS counter (website_id, last_sequence) VALUES (?, 1)
           ON CONFLICT (website_id) DO UPDATE SET last_sequence = counter.last_sequence + 1
         RETURNING last_sequence
       )
       INSERT INTO webhook_messages (message_id, webhook_id, type, payload, created_at, next_attempt_at)
       SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), hook.id, ?,
              jsonb_set(?::jsonb, '{sequence}', to_jsonb(counter.last_sequence)), ?, ?
         FROM webhooks hook, counter
        WHERE hook.website_id = ? AND hook.disabled_at IS NULL AND ${condition}
       RETURNING id`,
      [websiteId, type, payload, now, now, websiteId, ...values],
    )
  ).rows;

/**
 * Puts `type` in the outbox of every enabled endpoint of the website subscribed to it, in the caller's transaction:
 * the message exists exactly when the change it reports committed. One statement; nothing is sent on the caller's request.
 */
export async function enqueueEvent(
  q: Queryable,
  websiteId: number,
  type: WebhookEvent,
  data: Record<string, unknown>,
  now: Date,
): Promise<void> {
  await insertMessages(q, websiteId, type, payloadOf(websiteId, type, data, now), now, '? = ANY (hook.events)', [type]);
}

/** A `webhook.test` message for one endpoint of the website (whatever it subscribes to); false when there is no such endpoint. */
export async function enqueueTest(q: Queryable, websiteId: number, webhookId: number, now: Date): Promise<boolean> {
  const payload = payloadOf(websiteId, 'webhook.test', { webhookId }, now);
  return (await insertMessages(q, websiteId, 'webhook.test', payload, now, 'hook.id = ?', [webhookId])).length > 0;
}

/** A field of a change's `after`, as a webhook message carries it. */
const fields = (after: Record<string, unknown> | null, names: readonly string[]): Record<string, unknown> =>
  Object.fromEntries(names.map((name) => [name, after?.[name]]));

/**
 * Which website changes subscribers hear of, and what they are told: derived from the change the service recorded
 * (its action and its `after`), never its secrets. A change not listed here (a website created, its domain verified)
 * is in the audit trail only.
 */
const ANNOUNCED: Readonly<
  Record<string, (after: Record<string, unknown> | null) => readonly [WebhookEvent, Record<string, unknown>]>
> = {
  'website.updated': (after) => ['website.updated', { website: after }],
  'policy.updated': (after) => ['website.updated', { policy: after }],
  'key.regenerated': (after) => ['key.regenerated', fields(after, ['environment', 'publicKey'])],
  // the configuration as it now is, without its credentials
  'oauth2.created': (after) => ['oauth2.updated', fields(after, ['environment', 'status', 'redirectUris'])],
  'oauth2.updated': (after) => ['oauth2.updated', fields(after, ['environment', 'status', 'redirectUris'])],
  // the new client id only: a secret never travels in a webhook
  'oauth2.credentials.regenerated': (after) => [
    'oauth2.credentials.regenerated',
    fields(after, ['environment', 'clientId']),
  ],
  // to the website's other endpoints (the disabled one gets nothing more); its URL, never its secret
  'webhook.disabled': (after) => [
    'webhook.disabled',
    { webhookId: after?.id, ...fields(after, ['url', 'reason', 'disabledAt']) },
  ],
};

/** The webhooks' listener of every recorded change (lib/changes.ts): a website change subscribers hear of goes to the outbox. */
export async function announceChange(q: Queryable, change: Change): Promise<void> {
  const announce = change.websiteId === null ? undefined : ANNOUNCED[change.action];
  if (!announce) return;
  const [type, data] = announce(change.after);
  await enqueueEvent(q, change.websiteId!, type, data, change.at);
}
