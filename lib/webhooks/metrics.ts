import { Counter, Gauge, type Registry } from 'prom-client';
import type { Database } from '../store/database.js';
import { readBacklog, type Backlog } from './outbox.js';
import { ATTEMPT_OUTCOMES, type DeliveryMetrics } from './delivery.js';

/**
 * The webhooks' metric families: attempts by outcome, counted by the worker as they end, and the outbox's backlog
 * (messages waiting, how late the oldest due one is, endpoints in back-off), read by one query when /metrics is scraped: never a
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
  // The gauges from one statement: a scrape collects them together, and each shares the first one's reading.
  let reading: Promise<Backlog> | undefined;
  const backlog = (): Promise<Backlog> =>
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
  new Gauge({
    name: 'age_provider_webhook_endpoints_backed_off',
    help: 'Enabled webhook endpoints in back-off now (their last attempt timed out, could not connect, or got a 5xx or 429), all instances together',
    registers: [registry],
    async collect() {
      this.set((await backlog()).endpointsBackedOff);
    },
  });
  return { attempted: (outcome) => attempts.inc({ outcome }) };
}
