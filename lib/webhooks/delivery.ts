import { schedulePeriodic } from '../periodic.js';
import type { WebhookServices } from './services.js';
import { resolveDestination, RefusedDestination } from './destination.js';
import { claimDue, recordAttempt, type ClaimedMessage } from './outbox.js';
import { send, type SendResult } from './sender.js';
import { signatureOf } from './signature.js';

/**
 * Seconds to wait after each failed attempt (Standard Webhooks' suggested schedule): eight attempts over about 27.5
 * hours, still more than 24 hours with the jitter taken off. After the last one the message is given up.
 */
export const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;

/** Each delay is spread by up to this fraction either way, so endpoints that failed together are not retried together. */
const JITTER = 0.1;

/** Messages one instance takes per look at the outbox. */
const BATCH = 20;

/** When the attempt numbered `attempt` failed at `now`, when to try again (null: give up). */
export function nextRetry(now: Date, attempt: number, random: () => number = Math.random): Date | null {
  const delay = RETRY_DELAYS_SECONDS[attempt - 1];
  if (delay === undefined) return null;
  return new Date(now.getTime() + delay * 1000 * (1 + JITTER * (2 * random() - 1)));
}

async function attempt(runtime: WebhookServices, message: ClaimedMessage): Promise<void> {
  const { allowPrivateAddresses, timeoutMs } = runtime.config.webhooks;
  const startedAt = runtime.clock.now();
  const started = performance.now();
  let result: SendResult;
  try {
    const destination = await resolveDestination(message.url, allowPrivateAddresses);
    const body = JSON.stringify(message.payload);
    // The receiver judges freshness against its own clock: the signing time is the real one, whatever clock we run on.
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = signatureOf(runtime.sealer.unseal(message.secretSealed), message.messageId, timestamp, body);
    result = await send(
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
    result = { error: error.message };
  }
  const delivered = result.status !== undefined && result.status >= 200 && result.status < 300;
  const gone = result.status === 410;
  await recordAttempt(runtime.db, message, {
    attemptedAt: startedAt,
    status: result.status ?? null,
    durationMs: Math.round(performance.now() - started),
    error: result.error ?? null,
    nextRetryAt: delivered || gone ? null : nextRetry(startedAt, message.attempt),
    delivered,
    gone,
  });
}

/** One look at the outbox: every due message taken by this instance is attempted once, concurrently. */
export async function deliverDue(runtime: WebhookServices): Promise<number> {
  const now = runtime.clock.now();
  // Held long enough for the attempt to end and be recorded; after that another instance may take it again.
  const leaseUntil = new Date(now.getTime() + runtime.config.webhooks.timeoutMs + 60_000);
  const messages = await claimDue(runtime.db, now, leaseUntil, BATCH);
  await Promise.all(messages.map((message) => attempt(runtime, message)));
  return messages.length;
}

/** Delivers in the background, never on a visitor's or a caller's request. */
export function scheduleWebhookDelivery(runtime: WebhookServices): void {
  schedulePeriodic(runtime, {
    name: 'delivering webhooks',
    everyMs: runtime.config.webhooks.pollIntervalMs,
    run: async () => {
      // A full batch means more may be due.
      let taken;
      do taken = await deliverDue(runtime);
      while (taken === BATCH);
    },
  });
}
