import { Counter, Gauge, type Registry } from 'prom-client';
import type { Database } from '../store/database.js';
import { ATTEMPT_OUTCOMES, type DeliveryMetrics } from './delivery.js';

/**
 * The webhooks' metric families: attempts by outcome, counted by the worker as they end, and the outbox's backlog
 * (messages waiting, and how late the oldest due one is), read by one query when /metrics is scraped: never a
 * statement per visitor request, and none at all while nobody scrapes.
 */
export function webhookMetrics(registry: Registry, db: Database): DeliveryMetrics {
  const attempts = new Counter({
    name: 'age_provider_webhook_attempts_total',
    help: `Webhook delivery attempts made by this instance, by outcome (${ATTEMPT_OUTCOMES.join(', ')})`,
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of ATTEMPT_OUTCOMES) attempts.inc({ outcome }, 0);
  // Both gauges from one statement: a scrape collects them together, and the second shares the first's reading.
  let reading: Promise<{ pending: number; oldestDueSeconds: number }> | undefined;
  const backlog = (): Promise<{ pending: number; oldestDueSeconds: number }> =>
    (reading ??= readBacklog(db).finally(() => {
      reading = undefined;
    }));
  new Gauge({
    name: 'age_provider_webhook_backlog_messages',
    help: 'Webhook messages waiting for an attempt (due, scheduled for a retry or in flight) on enabled endpoints, all instances together',
    registers: [registry],
    async collect() {
      this.set((await backlog()).pending);
    },
  });
  new Gauge({
    name: 'age_provider_webhook_oldest_due_seconds',
    help: 'Seconds since the oldest message waiting for an attempt became due (0 when none is late), all instances together',
    registers: [registry],
    async collect() {
      this.set((await backlog()).oldestDueSeconds);
    },
  });
  return { attempted: (outcome) => attempts.inc({ outcome }) };
}

async function readBacklog(db: Database): Promise<{ pending: number; oldestDueSeconds: number }> {
  const row = await db('webhook_messages as message')
    .join('webhooks as hook', 'hook.id', 'message.webhook_id')
    .whereNull('hook.disabled_at')
    .whereNotNull('message.next_attempt_at')
    .first<{ pending: number | string; oldest: number | string | null }>(
      db.raw('count(*) AS pending'),
      db.raw(
        'extract(epoch FROM now() - min(message.next_attempt_at) FILTER (WHERE message.next_attempt_at <= now())) AS oldest',
      ),
    );
  return { pending: Number(row?.pending ?? 0), oldestDueSeconds: Math.max(0, Number(row?.oldest ?? 0)) };
}
