import type { Database } from '../store/database.js';
import type { WebhookPayload } from './events.js';

/** A message taken for one attempt, with what its delivery needs. */
export interface ClaimedMessage {
  id: number;
  messageId: string;
  webhookId: number;
  payload: WebhookPayload;
  /** this attempt's number, from 1 */
  attempt: number;
  url: string;
  secretSealed: string;
}

interface ClaimedRow {
  id: number;
  message_id: string;
  webhook_id: number;
  payload: WebhookPayload;
  attempts: number;
  url: string;
  secret_sealed: string;
}

/**
 * Takes up to `limit` due messages of enabled endpoints for one attempt each, in one statement: their next attempt is
 * moved to `leaseUntil` and their attempt count raised. SKIP LOCKED lets every instance sharing the database take
 * different messages; a message whose sender died is due again when its lease ends (delivery at least once).
 */
export async function claimDue(db: Database, now: Date, leaseUntil: Date, limit: number): Promise<ClaimedMessage[]> {
  const result = await db.raw<{ rows: ClaimedRow[] }>(
    `WITH due AS (
       SELECT message.id FROM webhook_messages message
         JOIN webhooks hook ON hook.id = message.webhook_id AND hook.disabled_at IS NULL
        WHERE message.next_attempt_at <= ?
        ORDER BY message.next_attempt_at
        LIMIT ?
        FOR UPDATE OF message SKIP LOCKED
     ), claimed AS (
       UPDATE webhook_messages message SET next_attempt_at = ?, attempts = message.attempts + 1
         FROM due WHERE message.id = due.id
       RETURNING message.id, message.message_id, message.webhook_id, message.payload, message.attempts
     )
     SELECT claimed.*, hook.url, hook.secret_sealed FROM claimed JOIN webhooks hook ON hook.id = claimed.webhook_id`,
    [now, limit, leaseUntil],
  );
  return result.rows.map((row) => ({
    id: Number(row.id),
    messageId: row.message_id,
    webhookId: Number(row.webhook_id),
    payload: row.payload,
    attempt: row.attempts,
    url: row.url,
    secretSealed: row.secret_sealed,
  }));
}

/** How one attempt ended, as the delivery log shows it. */
export interface AttemptRecord {
  attemptedAt: Date;
  status: number | null;
  durationMs: number;
  error: string | null;
  /** when the next attempt is due; null when there is none (delivered, given up, endpoint disabled) */
  nextRetryAt: Date | null;
  delivered: boolean;
  /** the receiver answered 410 Gone: the endpoint is disabled */
  gone: boolean;
}

/**
 * Records the attempt and what follows it, in one transaction, only while the message is still this attempt's (a
 * lease that ran out and was taken again by another instance leaves its own record to that instance).
 */
export async function recordAttempt(db: Database, message: ClaimedMessage, record: AttemptRecord): Promise<void> {
  await db.transaction(async (trx) => {
    const updated = await trx('webhook_messages')
      .where({ id: message.id, attempts: message.attempt })
      .update({
        next_attempt_at: record.nextRetryAt,
        ...(record.delivered ? { delivered_at: record.attemptedAt } : {}),
        ...(!record.delivered && record.nextRetryAt === null ? { given_up_at: record.attemptedAt } : {}),
      })
      .returning('id');
    if (updated.length === 0) return;
    await trx('webhook_attempts').insert({
      message_id: message.id,
      attempt: message.attempt,
      attempted_at: record.attemptedAt,
      status: record.status,
      duration_ms: record.durationMs,
      error: record.error,
      next_retry_at: record.nextRetryAt,
    });
    if (record.gone) {
      await trx('webhooks')
        .where('id', message.webhookId)
        .whereNull('disabled_at')
        .update({ disabled_at: record.attemptedAt, disabled_reason: 'the receiver answered 410 Gone' });
      // Whatever else waited for this endpoint is given up with it.
      await trx('webhook_messages')
        .where('webhook_id', message.webhookId)
        .whereNotNull('next_attempt_at')
        .update({ next_attempt_at: null, given_up_at: record.attemptedAt });
    }
  });
}
