import type { Knex } from 'knex';
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
  /** the secret the endpoint's last rotation replaced: it signs too until `expiresAt` (null: none) */
  previousSecret: { sealed: string; expiresAt: Date } | null;
}

interface ClaimedRow {
  id: number;
  message_id: string;
  webhook_id: number;
  payload: WebhookPayload;
  attempts: number;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
}

/** What one claim may take: free slots in all, and per endpoint what its cap leaves beside its attempts in flight. */
export interface ClaimLimits {
  /** messages in all */
  limit: number;
  /** attempts one endpoint may have in flight */
  perEndpoint: number;
  /** this instance's attempts in flight, by endpoint id */
  inFlight: ReadonlyMap<number, number>;
}

/**
 * Takes due messages of enabled endpoints that are not backed off for one attempt each, in one statement: their next
 * attempt is moved to `leaseUntil` and their attempt count raised. Spread across endpoints: each endpoint's oldest
 * due messages are ranked, and every endpoint's first comes before any endpoint's second, never more per endpoint
 * than its cap leaves (one endpoint's backlog cannot fill a claim). SKIP LOCKED lets every instance sharing the
 * database take different messages; a message whose sender died is due again when its lease ends (at least once).
 */
export async function claimDue(
  db: Database,
  now: Date,
  leaseUntil: Date,
  limits: ClaimLimits,
): Promise<ClaimedMessage[]> {
  const busyIds = [...limits.inFlight.keys()];
  const result = await db.raw<{ rows: ClaimedRow[] }>(
    `WITH busy AS (
       SELECT * FROM unnest(?::bigint[], ?::int[]) AS busy (webhook_id, in_flight)
     ), candidates AS (
       SELECT picked.id, picked.next_attempt_at,
              row_number() OVER (PARTITION BY hook.id ORDER BY picked.next_attempt_at, picked.id) AS rank,
              ? - coalesce(busy.in_flight, 0) AS free
         FROM webhooks hook
         LEFT JOIN busy ON busy.webhook_id = hook.id
         CROSS JOIN LATERAL (
           SELECT message.id, message.next_attempt_at FROM webhook_messages message
            WHERE message.webhook_id = hook.id AND message.next_attempt_at <= ?
            ORDER BY message.next_attempt_at
            LIMIT ?
         ) picked
        WHERE hook.disabled_at IS NULL AND (hook.backoff_until IS NULL OR hook.backoff_until <= ?)
     ), chosen AS (
       SELECT id FROM candidates WHERE rank <= free ORDER BY rank, next_attempt_at LIMIT ?
     ), due AS (
       -- Only the chosen rows are locked; one another instance took meanwhile is skipped, or no longer due once its
       -- lease is seen (the condition is checked again on the row's newest version).
       SELECT message.id FROM webhook_messages message JOIN chosen ON chosen.id = message.id
        WHERE message.next_attempt_at <= ?
        FOR UPDATE OF message SKIP LOCKED
     ), claimed AS (
       UPDATE webhook_messages message SET next_attempt_at = ?, attempts = message.attempts + 1
         FROM due WHERE message.id = due.id
       RETURNING message.id, message.message_id, message.webhook_id, message.payload, message.attempts
     )
     SELECT claimed.*, hook.url, hook.secret_sealed, hook.previous_secret_sealed, hook.previous_secret_expires_at
       FROM claimed JOIN webhooks hook ON hook.id = claimed.webhook_id`,
    [
      busyIds,
      busyIds.map((id) => limits.inFlight.get(id)!),
      limits.perEndpoint,
      now,
      limits.perEndpoint,
      now,
      limits.limit,
      now,
      leaseUntil,
    ],
  );
  return result.rows.map((row) => ({
    id: Number(row.id),
    messageId: row.message_id,
    webhookId: Number(row.webhook_id),
    payload: row.payload,
    attempt: row.attempts,
    url: row.url,
    secretSealed: row.secret_sealed,
    previousSecret:
      row.previous_secret_sealed === null || row.previous_secret_expires_at === null
        ? null
        : { sealed: row.previous_secret_sealed, expiresAt: new Date(row.previous_secret_expires_at) },
  }));
}

/** The bytes of one attempt a webmaster debugs with (migration 017). */
export interface AttemptExchange {
  /** the body sent, exactly: the signature covers these bytes; null when no request was made (refused address) */
  requestBody: string | null;
  /** the first KiB of the receiver's answer; null without one */
  responseBody: string | null;
  responseTruncated: boolean | null;
}

/** How one attempt ended, as the delivery log shows it. */
export interface AttemptRecord {
  attemptedAt: Date;
  /** when the attempt ended: a back-off runs from then, not from its start (a timeout took its whole length) */
  endedAt: Date;
  status: number | null;
  durationMs: number;
  error: string | null;
  /** what was sent and the start of the answer, for the delivery log (null when nothing was sent) */
  exchange: AttemptExchange;
  /** when the next attempt is due; null when there is none (delivered, given up, endpoint disabled) */
  nextRetryAt: Date | null;
  delivered: boolean;
  /** the receiver answered 410 Gone: the caller disables the endpoint in the same transaction (lib/webhooks/disabling.ts) */
  gone: boolean;
  /** the endpoint itself failed (no answer in time, unreachable, a 5xx or 429): it is backed off */
  endpointFailed: boolean;
}

/** The first back-off of a failing endpoint; each further failure doubles it, up to BACKOFF_MAX_MS. */
const BACKOFF_FIRST_MS = 5_000;
const BACKOFF_MAX_MS = 10 * 60_000;

/** What recording an attempt changed at its endpoint. */
export interface RecordedAttempt {
  /** false when the lease had passed to another instance: nothing was recorded */
  recorded: boolean;
  /** this attempt started a back-off of its endpoint (concurrent failures start one, not one each) */
  backoff?: { until: Date; ms: number };
}

/** Why a message was given up before its last attempt (`webhook_messages.given_up_reason`). */
export const GIVEN_UP_ENDPOINT_DISABLED = 'endpoint disabled';

/**
 * Records the attempt and what follows it, in the caller's transaction, only while the message is still this
 * attempt's (a lease that ran out and was taken again by another instance leaves its own record to that instance).
 * The endpoint's row is locked first, then its messages: the one lock order of every path that disables an endpoint
 * or gives up its messages (docs/decisions/webhooks.md "Delivery under faults"), so concurrent 410 answers wait for
 * each other instead of deadlocking. A 410 answer is recorded here and the endpoint disabled by the caller
 * (lib/webhooks/disabling.ts recordGone), which locked the website's row before this.
 */
export async function recordAttempt(
  trx: Knex.Transaction,
  message: ClaimedMessage,
  record: AttemptRecord,
): Promise<RecordedAttempt> {
  const endpoint = await trx('webhooks')
    .where('id', message.webhookId)
    .forNoKeyUpdate()
    .first<{ backoff_until: Date | null; backoff_ms: number | null } | undefined>('backoff_until', 'backoff_ms');
  if (!endpoint) return { recorded: false };
  // A message given up meanwhile (its endpoint disabled) stays given up; its attempt is still recorded.
  const updated = await trx.raw<{ rows: unknown[] }>(
    `UPDATE webhook_messages SET
       next_attempt_at = CASE WHEN given_up_at IS NULL THEN ?::timestamptz END,
       delivered_at = CASE WHEN ? THEN ?::timestamptz ELSE delivered_at END,
       given_up_at = CASE WHEN given_up_at IS NULL AND NOT ? AND ?::timestamptz IS NULL THEN ?::timestamptz
                          ELSE given_up_at END
     WHERE id = ? AND attempts = ? RETURNING id`,
    [
      record.nextRetryAt,
      record.delivered,
      record.attemptedAt,
      record.delivered,
      record.nextRetryAt,
      record.attemptedAt,
      message.id,
      message.attempt,
    ],
  );
  if (updated.rows.length === 0) return { recorded: false };
  await trx('webhook_attempts').insert({
    message_id: message.id,
    attempt: message.attempt,
    attempted_at: record.attemptedAt,
    status: record.status,
    duration_ms: record.durationMs,
    error: record.error,
    next_retry_at: record.nextRetryAt,
    request_body: record.exchange.requestBody,
    response_body: record.exchange.responseBody,
    response_truncated: record.exchange.responseTruncated,
  });
  if (record.gone) return { recorded: true };
  if (record.delivered) {
    await trx('webhooks')
      .where('id', message.webhookId)
      .where((failing) => {
        failing.whereNotNull('failing_since').orWhereNotNull('backoff_ms');
      })
      .update({ failing_since: null, backoff_until: null, backoff_ms: null });
    return { recorded: true };
  }
  const now = record.endedAt;
  const backedOff = endpoint.backoff_until !== null && endpoint.backoff_until > now;
  // Concurrent failures of one endpoint start one back-off: the first to record it; the others find it running.
  const backoffMs =
    record.endpointFailed && !backedOff
      ? Math.min(endpoint.backoff_ms === null ? BACKOFF_FIRST_MS : endpoint.backoff_ms * 2, BACKOFF_MAX_MS)
      : null;
  const backoffUntil = backoffMs === null ? null : new Date(now.getTime() + backoffMs);
  await trx('webhooks')
    .where('id', message.webhookId)
    .update({
      failing_since: trx.raw('coalesce(failing_since, ?)', [record.attemptedAt]),
      ...(backoffMs === null ? {} : { backoff_until: backoffUntil, backoff_ms: backoffMs }),
    });
  return backoffMs === null ? { recorded: true } : { recorded: true, backoff: { until: backoffUntil!, ms: backoffMs } };
}

/**
 * Disables the endpoint (when it is not already) and gives up every message still waiting for it, in the caller's
 * transaction: the endpoint's row is locked before any message's, the one lock order of every path that touches an
 * endpoint and its messages. Returns false when it was already disabled (its leftovers are given up all the same).
 */
export async function disableEndpoint(
  trx: Knex.Transaction,
  webhookId: number,
  at: Date,
  reason: string,
): Promise<boolean> {
  const endpoint = await trx('webhooks')
    .where('id', webhookId)
    .forNoKeyUpdate()
    .first<{ disabled_at: Date | null } | undefined>('disabled_at');
  if (!endpoint) return false;
  if (endpoint.disabled_at === null)
    await trx('webhooks')
      .where('id', webhookId)
      .update({ disabled_at: at, disabled_reason: reason, backoff_until: null, backoff_ms: null });
  await giveUp(trx.from('webhook_messages').where('webhook_id', webhookId), at, GIVEN_UP_ENDPOINT_DISABLED);
  return endpoint.disabled_at === null;
}

/** Gives up the waiting messages among `messages` (in flight ones too: their attempt is still recorded); how many. */
export const giveUp = async (messages: Knex.QueryBuilder, at: Date, reason: string): Promise<number> =>
  (
    await messages
      .whereNotNull('next_attempt_at')
      .whereNull('given_up_at')
      .update({ next_attempt_at: null, given_up_at: at, given_up_reason: reason })
      .returning('id')
  ).length;

/** The outbox as operators watch it, all instances together (lib/webhooks/metrics.ts). */
export interface Backlog {
  pending: number;
  oldestDueSeconds: number;
  endpointsBackedOff: number;
}

/** One statement: messages waiting on enabled endpoints, how late the oldest due one is, endpoints in back-off. */
export async function readBacklog(db: Database): Promise<Backlog> {
  const row = await db('webhook_messages as message')
    .join('webhooks as hook', 'hook.id', 'message.webhook_id')
    .whereNull('hook.disabled_at')
    .whereNotNull('message.next_attempt_at')
    .first<{ pending: number | string; oldest: number | string | null; backed_off: number | string }>(
      db.raw('count(*) AS pending'),
      db.raw(
        'extract(epoch FROM now() - min(message.next_attempt_at) FILTER (WHERE message.next_attempt_at <= now())) AS oldest',
      ),
      db.raw('(SELECT count(*) FROM webhooks WHERE disabled_at IS NULL AND backoff_until > now()) AS backed_off'),
    );
  return {
    pending: Number(row?.pending ?? 0),
    oldestDueSeconds: Math.max(0, Number(row?.oldest ?? 0)),
    endpointsBackedOff: Number(row?.backed_off ?? 0),
  };
}
