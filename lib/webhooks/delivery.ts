import type { Logger } from '../log.js';
import { schedulePeriodic, CLOSE_WAIT_MS } from '../periodic.js';
import type { Database } from '../store/database.js';
import { settlesWithin } from '../time-limit.js';
import type { WebhookServices } from './services.js';
import { resolveDestination, RefusedDestination } from './destination.js';
import { claimDue, recordAttempt, type AttemptExchange, type AttemptRecord, type ClaimedMessage } from './outbox.js';
import { rejectedWith } from './delivery-errors.js';
import { mailOwners, recordGone, type OwnersMail, type RecordedGone } from './disabling.js';
import { send, type SendResult } from './sender.js';
import { overlapLasts, signaturesOf } from './signature.js';
import { retriedTransaction } from '../store/retry.js';

/**
 * Seconds to wait after each failed attempt (Standard Webhooks' suggested schedule): eight attempts over about 27.5
 * hours, still more than 24 hours with the jitter taken off. After the last one the message is given up.
 */
export const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;

/** Each delay is spread by up to this fraction either way, so endpoints that failed together are not retried together. */
const JITTER = 0.1;

/** When the attempt numbered `attempt` failed at `now`, when to try again (null: give up). */
export function nextRetry(now: Date, attempt: number, random: () => number = Math.random): Date | null {
  const delay = RETRY_DELAYS_SECONDS[attempt - 1];
  if (delay === undefined) return null;
  return new Date(now.getTime() + delay * 1000 * (1 + JITTER * (2 * random() - 1)));
}

/** How an attempt ended, as `age_provider_webhook_attempts_total{outcome}` counts it. */
export const ATTEMPT_OUTCOMES = ['delivered', 'rejected', 'gone', 'timeout', 'unreachable', 'refused_address'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** Where the delivery worker reports each attempt (lib/webhooks/metrics.ts). */
export interface DeliveryMetrics {
  attempted(outcome: AttemptOutcome): void;
}

/**
 * What the delivery worker runs on: the services, its own small pool of database connections, and the mail server
 * that tells an account's owners when a 410 answer disabled an endpoint.
 */
export interface DeliveryWorkerInput extends OwnersMail {
  runtime: WebhookServices;
  /** the worker's own pool (WEBHOOK_DATABASE_CONNECTIONS); the embedded database's one connection otherwise */
  db: Database;
  metrics: DeliveryMetrics;
}

/**
 * The secrets a message is signed with now: the endpoint's current one, and while its last rotation's overlap lasts
 * (on the service's clock) the one it replaced.
 */
const secretsOf = (runtime: WebhookServices, message: ClaimedMessage): string[] => {
  const previous = message.previousSecret;
  const current = runtime.sealer.unseal(message.secretSealed);
  return previous && overlapLasts(previous.expiresAt, runtime.clock.now())
    ? [current, runtime.sealer.unseal(previous.sealed)]
    : [current];
};

const outcomeOf = (result: SendResult | { refused: string }): AttemptOutcome => {
  if ('refused' in result) return 'refused_address';
  if (result.status === undefined) return result.timedOut ? 'timeout' : 'unreachable';
  if (result.status >= 200 && result.status < 300) return 'delivered';
  return result.status === 410 ? 'gone' : 'rejected';
};

/**
 * An endpoint that did not answer in time, could not be reached, or answered that it cannot take messages now (5xx,
 * 429) is backed off; any other answer is this message's problem, retried on the message's own schedule.
 */
const endpointFailed = (outcome: AttemptOutcome, status: number | undefined): boolean =>
  outcome === 'timeout' ||
  outcome === 'unreachable' ||
  outcome === 'refused_address' ||
  (outcome === 'rejected' && (status! >= 500 || status === 429));

async function sendOnce(
  runtime: WebhookServices,
  message: ClaimedMessage,
  body: string,
): Promise<SendResult | { refused: string }> {
  const { allowPrivateAddresses, timeoutMs } = runtime.config.webhooks;
  try {
    const destination = await resolveDestination(message.url, allowPrivateAddresses);
    // The receiver judges freshness against its own clock: the signing time is the real one, whatever clock we run on.
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = signaturesOf(secretsOf(runtime, message), message.messageId, timestamp, body);
    return await send(
      destination,
      {
        'webhook-id': message.messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature,
      },
      body,
      timeoutMs,
    );
  } catch (error) {
    if (!(error instanceof RefusedDestination)) throw error;
    return { refused: error.message };
  }
}

/** The delivery log's words for an attempt that did not deliver (lib/webhooks/delivery-errors.ts); null when it did. */
const errorOf = (result: SendResult | { refused: string }): string | null => {
  if ('refused' in result) return result.refused;
  if (result.status === undefined) return result.error;
  return result.status >= 200 && result.status < 300 ? null : rejectedWith(result.status);
};

const exchangeOf = (result: SendResult | { refused: string }, body: string): AttemptExchange =>
  'refused' in result
    ? { requestBody: null, responseBody: null, responseTruncated: null }
    : result.status === undefined
      ? { requestBody: body, responseBody: null, responseTruncated: null }
      : { requestBody: body, responseBody: result.body, responseTruncated: result.truncated };

async function attempt(input: DeliveryWorkerInput, message: ClaimedMessage): Promise<void> {
  const { runtime, db, metrics } = input;
  const startedAt = runtime.clock.now();
  const started = performance.now();
  const body = JSON.stringify(message.payload);
  const result = await sendOnce(runtime, message, body);
  const outcome = outcomeOf(result);
  const status = 'status' in result ? result.status : undefined;
  const delivered = outcome === 'delivered';
  const gone = outcome === 'gone';
  const record: AttemptRecord = {
    attemptedAt: startedAt,
    endedAt: runtime.clock.now(),
    status: status ?? null,
    durationMs: Math.round(performance.now() - started),
    error: errorOf(result),
    exchange: exchangeOf(result, body),
    nextRetryAt: delivered || gone ? null : nextRetry(startedAt, message.attempt),
    delivered,
    gone,
    endpointFailed: endpointFailed(outcome, status),
  };
  const recorded: RecordedGone = gone
    ? await recordGone(runtime, db, message, record)
    : await retriedTransaction(db, (trx) => recordAttempt(trx, message, record));
  metrics.attempted(outcome);
  // One line per back-off of an endpoint, not one per message: a dead endpoint with a backlog writes a few lines.
  if (recorded.backoff)
    runtime.log.warn('webhook endpoint backed off', {
      webhookId: message.webhookId,
      websiteId: message.payload.data.websiteId,
      outcome,
      ...(status === undefined ? {} : { status }),
      backoffMs: recorded.backoff.ms,
      until: recorded.backoff.until.toISOString(),
    });
  if (recorded.disabled) {
    runtime.log.info('webhook endpoint disabled: its receiver answered 410 Gone', { webhookId: message.webhookId });
    await mailOwners(runtime, db, input, recorded.disabled, 'gone');
  }
}

/**
 * Keeps up to WEBHOOK_CONCURRENCY attempts in flight, at most WEBHOOK_ENDPOINT_CONCURRENCY per endpoint, and claims
 * more as slots free: no attempt ever waits for another (a batch is never awaited as a whole), so an endpoint that
 * accepts and never answers holds its own few slots for its timeout and nothing else.
 */
class DeliveryWorker {
  private inFlight = 0;
  private readonly perEndpoint = new Map<number, number>();
  private readonly attempts = new Set<Promise<void>>();
  private claiming: Promise<void> | undefined;
  /** a fill was asked for while one was claiming: claim once more when it ends */
  private again = false;
  /** the last claim was cut by a limit (slots or an endpoint's cap): a freed slot may find more due at once */
  private moreMayBeDue = false;
  private closed = false;

  constructor(private readonly input: DeliveryWorkerInput) {}

  /** Claims due messages for every free slot; one claim at a time per instance. */
  fill(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.claiming) {
      this.again = true;
      return this.claiming;
    }
    this.claiming = this.claimWhileFree().finally(() => {
      this.claiming = undefined;
    });
    return this.claiming;
  }

  /** Stops claiming and waits (at most CLOSE_WAIT_MS) for the attempts in flight to be recorded. */
  async close(log: Logger): Promise<void> {
    this.closed = true;
    const pending = Promise.allSettled([...(this.claiming ? [this.claiming] : []), ...this.attempts]);
    if ((await settlesWithin(pending, CLOSE_WAIT_MS)) === 'late')
      log.warn('webhook attempts were still in flight at close: their messages are due again when their lease ends');
  }

  private async claimWhileFree(): Promise<void> {
    const { runtime, db } = this.input;
    const { concurrency, endpointConcurrency, timeoutMs } = runtime.config.webhooks;
    const cap = Math.min(endpointConcurrency, concurrency);
    do {
      this.again = false;
      const free = concurrency - this.inFlight;
      if (free <= 0 || this.closed) return;
      const now = runtime.clock.now();
      // Held long enough for the attempt to end and be recorded; after that another instance may take it again.
      const leaseUntil = new Date(now.getTime() + timeoutMs + 60_000);
      const claimed = await claimDue(db, now, leaseUntil, {
        limit: free,
        perEndpoint: cap,
        inFlight: this.perEndpoint,
      });
      for (const message of claimed) this.start(message);
      const taken = new Map<number, number>();
      for (const message of claimed) taken.set(message.webhookId, (taken.get(message.webhookId) ?? 0) + 1);
      this.moreMayBeDue =
        claimed.length === free || [...taken.keys()].some((webhookId) => this.perEndpoint.get(webhookId)! >= cap);
    } while (this.again);
  }

  private start(message: ClaimedMessage): void {
    this.inFlight += 1;
    this.perEndpoint.set(message.webhookId, (this.perEndpoint.get(message.webhookId) ?? 0) + 1);
    const running = attempt(this.input, message)
      .catch((error: unknown) =>
        // Recording failed (the database away): the message is due again when its lease ends.
        this.input.runtime.log.warn('webhook attempt not recorded', {
          webhookId: message.webhookId,
          error: String(error),
        }),
      )
      .finally(() => {
        this.attempts.delete(running);
        this.inFlight -= 1;
        const left = this.perEndpoint.get(message.webhookId)! - 1;
        if (left === 0) this.perEndpoint.delete(message.webhookId);
        else this.perEndpoint.set(message.webhookId, left);
        // A failed claim is tried again at the next poll (which logs its own failures).
        if (this.moreMayBeDue) this.fill().catch(() => undefined);
      });
    this.attempts.add(running);
  }
}

/** Delivers in the background, never on a visitor's or a caller's request: a look at the outbox every poll interval. */
export function scheduleWebhookDelivery(input: DeliveryWorkerInput): void {
  const worker = new DeliveryWorker(input);
  const { runtime } = input;
  schedulePeriodic(runtime, {
    name: 'delivering webhooks',
    everyMs: runtime.config.webhooks.pollIntervalMs,
    run: () => worker.fill(),
  });
  runtime.onClose(() => worker.close(runtime.log));
}
