import Router from '@koa/router';
import type { Context } from 'koa';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface Metrics {
  /** Records one request's duration by surface, method and status class (lib/http/envelope.ts calls it once it is answered). */
  observe(ctx: Context, seconds: number): void;
  /** GET /metrics in the Prometheus text format. */
  routes: Router;
  /** Adds what a statistics rollup counted to age_provider_verifications_total. */
  countVerifications: (challenge: string, outcome: string, environment: string, count: number) => void;
  /** where a feature that owns its metric families registers them (lib/webhooks/metrics.ts) */
  registry: Registry;
}

/** What the metrics read when scraped, from the modules that own each fact. */
export interface MetricSources {
  /** rate limits counting in memory because Redis did not answer (lib/http/shared-limits.ts) */
  redisFallbackActive(): boolean;
  /** whether each configured challenge can verify now */
  availability(): Record<string, boolean>;
}

/**
 * Prometheus metrics for operators: request latency per surface, whether each configured challenge can verify now,
 * whether the rate limits fell back to memory (each read at each scrape), plus the process defaults (memory, event
 * loop, GC).
 */
export function createMetrics(sources: MetricSources): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'age_provider_challenge_available',
    help: 'Whether a configured challenge is offered now (0: e.g. eu_av whose trusted list is past its next update and the grace)',
    labelNames: ['challenge'] as const,
    registers: [registry],
    collect() {
      for (const [challenge, available] of Object.entries(sources.availability()))
        this.set({ challenge }, available ? 1 : 0);
    },
  });
  const duration = new Histogram({
    name: 'age_provider_http_request_duration_seconds',
    help: 'HTTP request duration by surface, method and status class',
    labelNames: ['surface', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  // Counted by the statistics rollup (lib/statistics), once across instances: sum the instances' series.
  const verifications = new Counter({
    name: 'age_provider_verifications_total',
    help: 'Verification outcomes by challenge, outcome (passed, reused, refused, abandoned) and environment, as the statistics rollup counts them',
    labelNames: ['challenge', 'outcome', 'environment'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'age_provider_redis_fallback_active',
    help: "1 while the rate limits count in this instance's memory because Redis did not answer (the breaker is open), else 0",
    registers: [registry],
    collect() {
      this.set(sources.redisFallbackActive() ? 1 : 0);
    },
  });
  const routes = new Router();
  routes.get('/metrics', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });
  return {
    routes,
    registry,
    countVerifications: (challenge, outcome, environment, count) =>
      verifications.inc({ challenge, outcome, environment }, count),
    observe(ctx, seconds) {
      // The surface that claimed the request (lib/app/surfaces.ts): a bounded label set, never raw paths.
      const surface = ctx.state.surface?.name ?? 'none';
      duration.observe({ surface, method: ctx.method, status: `${Math.floor(ctx.status / 100)}xx` }, seconds);
    },
  };
}
