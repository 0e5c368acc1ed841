import { Refusal } from '../refusal.js';
import { retriedTransaction } from '../store/retry.js';
import { checkWebsiteId, websiteAccess } from '../websites/ownership.js';
import type { WebhookServices } from './services.js';
import type { WebhookEvent } from './events.js';
import { attemptSummaryOf, iso, type AttemptSummary, type AttemptSummaryRow } from './endpoints.js';

/** Where a message stands: waiting for an attempt (or in one), delivered by its latest attempt, or given up. */
type MessageState = 'pending' | 'delivered' | 'given_up';

/** One attempt with what a webmaster debugs with: the body sent and the start of the answer. */
interface MessageAttempt extends AttemptSummary {
  requestBody: string | null;
  responseBody: string | null;
  responseTruncated: boolean | null;
}

/** One message of an endpoint with every attempt at it, oldest first. */
export interface WebhookMessage {
  messageId: string;
  event: WebhookEvent;
  createdAt: string;
  state: MessageState;
  givenUpReason: string | null;
  attempts: MessageAttempt[];
}

interface MessageRow {
  id: number;
  message_id: string;
  type: WebhookEvent;
  created_at: Date;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  given_up_at: Date | null;
  given_up_reason: string | null;
}

interface AttemptRow extends AttemptSummaryRow {
  request_body: string | null;
  response_body: string | null;
  response_truncated: boolean | null;
}

const notFound = (): Refusal => new Refusal('not_found', 'Webhook message not found.');

const stateOf = (row: MessageRow): MessageState => {
  if (row.next_attempt_at !== null) return 'pending';
  return row.given_up_at !== null || row.delivered_at === null ? 'given_up' : 'delivered';
};

/**
 * The message of the endpoint, by its `webhook-id`, with its attempts. Tenancy is in the query: the message is looked
 * up through an endpoint of this website, so another website's message id is not found.
 */
export async function getWebhookMessage(
  runtime: WebhookServices,
  webmasterId: number,
  websiteId: number,
  webhookId: number,
  messageId: string,
): Promise<WebhookMessage> {
  checkWebsiteId(websiteId);
  await websiteAccess(runtime.db, webmasterId, websiteId);
  // One snapshot for the message and its attempts: read apart, an attempt recorded between the two reads showed
  // beside the state from before it ("pending" next to a delivered attempt).
  return runtime.db.transaction(
    async (trx) => {
      const message = await trx('webhook_messages as message')
        .join('webhooks as hook', 'hook.id', 'message.webhook_id')
        .where({ 'message.message_id': messageId, 'hook.id': webhookId, 'hook.website_id': websiteId })
        .first<MessageRow | undefined>(
          'message.id',
          'message.message_id',
          'message.type',
          'message.created_at',
          'message.next_attempt_at',
          'message.delivered_at',
          'message.given_up_at',
          'message.given_up_reason',
        );
      if (!message) throw notFound();
      const attempts = await trx('webhook_attempts')
        .where('message_id', message.id)
        .orderBy('attempt')
        .select<AttemptRow[]>(
          'attempt',
          'attempted_at',
          'status',
          'duration_ms',
          'error',
          'next_retry_at',
          'request_body',
          'response_body',
          'response_truncated',
        );
      return {
        messageId: message.message_id,
        event: message.type,
        createdAt: iso(message.created_at)!,
        state: stateOf(message),
        givenUpReason: message.given_up_reason,
        attempts: attempts.map((row) => ({
          ...attemptSummaryOf(row),
          requestBody: row.request_body,
          responseBody: row.response_body,
          responseTruncated: row.response_truncated,
        })),
      };
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
}

/**
 * Makes the message due now, with the same `webhook-id` (the receiver's idempotency key): delivered, given up or
 * still waiting for a retry. One statement decides, so a double submit queues one attempt: a message already due, or
 * in flight (claimed: its latest attempt number has no record yet), is left as it is. The attempt is the message's
 * next one; its retries follow what is left of the schedule (docs/decisions/webhooks.md "Manual redelivery").
 *
 * It also ends the endpoint's back-off: a webmaster who fixed their receiver and asks for the message now means now.
 * The back-off's length is kept, so a receiver still failing is backed off twice as long again. The endpoint's row is
 * locked before its message's, the order the delivery worker records attempts in, so the two never deadlock.
 */
export async function redeliverMessage(
  runtime: WebhookServices,
  webmasterId: number,
  websiteId: number,
  webhookId: number,
  messageId: string,
): Promise<{ queued: true }> {
  checkWebsiteId(websiteId);
  await websiteAccess(runtime.db, webmasterId, websiteId);
  const now = runtime.clock.now();
  await retriedTransaction(runtime.db, async (trx) => {
    await trx('webhooks')
      .where({ id: webhookId, website_id: websiteId })
      .whereNull('disabled_at')
      .whereNotNull('backoff_until')
      .update({ backoff_until: null });
    const found = await trx.raw<{ rows: Array<{ disabled: boolean }> }>(
      `WITH target AS (
       SELECT message.id, hook.disabled_at IS NOT NULL AS disabled
         FROM webhook_messages message JOIN webhooks hook ON hook.id = message.webhook_id
        WHERE message.message_id = ? AND hook.id = ? AND hook.website_id = ?
     ), queued AS (
       UPDATE webhook_messages message
          SET next_attempt_at = ?, delivered_at = NULL, given_up_at = NULL, given_up_reason = NULL
         FROM target
        WHERE message.id = target.id AND NOT target.disabled
          AND (message.next_attempt_at IS NULL
               OR (message.next_attempt_at > ? AND EXISTS (
                     SELECT 1 FROM webhook_attempts attempt
                      WHERE attempt.message_id = message.id AND attempt.attempt = message.attempts)))
     )
     SELECT disabled FROM target`,
      [messageId, webhookId, websiteId, now, now],
    );
    // Thrown inside the transaction: a message that is not found lifts no back-off either.
    const [target] = found.rows;
    if (!target) throw notFound();
    if (target.disabled)
      throw new Refusal('conflict', 'The webhook is disabled: register its URL again to send messages to it.');
  });
  return { queued: true };
}
