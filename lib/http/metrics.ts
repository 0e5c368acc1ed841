import Router from '@koa/router';
import type { Context } from 'koa';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DatabaseFailures, PoolState } from '../store/database.js';
import type { LimitName } from './limits.js';
import { routePatternOf } from './route-pattern.js';

/** How a flow ended for the website: with a fresh or a reused result, refused by a check, given up, or with no check to offer. */
export type FlowOutcome = 'passed' | 'reused' | 'refused' | 'abandoned' | 'unavailable';

/** A flow's end as the metrics count it: `challenge` is the one that passed or refused (none when abandoned or unavailable). */
export interface FlowEnding {
  environment: string;
  outcome: FlowOutcome;
  challenge: string | null;
}

/** Flows counted in this instance's memory as they start and end, never with a statement. */
export interface FlowCounters {
  started(environment: string): void;
  ended(ending: FlowEnding): void;
}

export interface Metrics {
  /** Records one request's duration by surface, route pattern, method and status class (lib/http/envelope.ts calls it once it is answered). */
  observe(ctx: Context, seconds: number): void;
  /** GET /metrics in the Prometheus text format. */
  routes: Router;
  /** Adds what a statistics rollup counted to age_provider_verifications_total. */
  countVerifications: (challenge: string, outcome: string, environment: string, count: number) => void;
  /** where a feature that owns its metric families registers them (lib/webhooks/metrics.ts) */
  registry: Registry;
  flows: FlowCounters;
  /** A rate limit refused a request (lib/http/rate-limit.ts). */
  limitRefused: (limit: LimitName) => void;
  /** Failed statements and acquires, counted as they happen (lib/store/database.ts watchFailures). */
  databaseFailures: DatabaseFailures;
}

/** What /readyz says of the eu_av trusted list (lib/verification/challenges/eu-av/trusted-list-source.ts), as far as the metrics read it. */
export interface TrustedListState {
  source: string;
  outcome: string;
  anchors: number;
  list_issued?: string;
  next_update?: string;
  stale?: true;
}

/** What the metrics read when scraped, from the modules that own each fact. */
export interface MetricSources {
  /** rate limits counting in memory because Redis did not answer (lib/http/shared-limits.ts) */
  redisFallbackActive(): boolean;
  /** whether each configured challenge can verify now */
  availability(): Record<string, boolean>;
  databasePool(): PoolState | undefined;
  /** whether the database's change announcements are heard (lib/store/change-feed.ts) */
  changeFeedTrusted(): boolean;
  /** the trusted list eu_av follows, when it follows one */
  trustedList(): TrustedListState | undefined;
  /** this build's version */
  version: string;
}

/** PostgreSQL's error codes: five digits or capitals, the first two the class. A driver's own (ECONNRESET) is not one. */
const SQLSTATE = /^[0-9A-Z]{5}$/;

const epochSeconds = (iso: string | undefined): number | undefined =>
  iso === undefined ? undefined : Date.parse(iso) / 1000;

/**
 * Prometheus metrics for operators (docs/operations.md lists the families). Counters are incremented in memory where
 * the event happens; gauges read their owner's state at each scrape. Nothing here runs a statement. Label values are
 * bounded sets: surfaces, route patterns, challenge and limit names, SQLSTATE classes.
 */
export function createMetrics(sources: MetricSources): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'age_provider_build_info',
    help: "This build's version and the Node.js running it (always 1)",
    labelNames: ['version', 'node'] as const,
    registers: [registry],
  }).set({ version: sources.version, node: process.version }, 1);
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
    help: 'HTTP request duration by surface, route pattern ("none": no route matched), method and status class',
    labelNames: ['surface', 'route', 'method', 'status'] as const,
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
  const started = new Counter({
    name: 'age_provider_flows_started_total',
    help: 'Authorization flows begun in this instance (counted once per interaction), by environment',
    labelNames: ['environment'] as const,
    registers: [registry],
  });
  const ended = new Counter({
    name: 'age_provider_flows_ended_total',
    help: 'Flows ended in this instance (the visitor sent back to the website), by challenge ("none" when no check decided), outcome (passed, reused, refused, abandoned, unavailable) and environment',
    labelNames: ['challenge', 'outcome', 'environment'] as const,
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'age_provider_rate_limit_refusals_total',
    help: 'Requests refused with 429 by a rate limit, by limit (docs/configuration.md "Rate limits")',
    labelNames: ['limit'] as const,
    registers: [registry],
  });
  const queryFailures = new Counter({
    name: 'age_provider_db_query_failures_total',
    help: 'Statements that failed, by SQLSTATE class (e.g. 23 a constraint, 57 a timeout or shutdown, 08 a connection; "none": no answer from the server)',
    labelNames: ['sqlstate_class'] as const,
    registers: [registry],
  });
  const acquireFailures = new Counter({
    name: 'age_provider_db_pool_acquire_failures_total',
    help: 'Queries that got no pooled connection within DB_ACQUIRE_TIMEOUT_MS, or whose new connection failed',
    registers: [registry],
  });
  const pool = (name: string, help: string, read: (state: PoolState) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const state = sources.databasePool();
        if (state) this.set(read(state));
      },
    });
  pool(
    'age_provider_db_pool_in_use',
    'Pooled database connections running a query or transaction now',
    (state) => state.inUse,
  );
  pool(
    'age_provider_db_pool_waiting',
    'Queries waiting for a pooled database connection now',
    (state) => state.waiting,
  );
  pool('age_provider_db_pool_max', 'The pool size (DB_POOL_MAX)', (state) => state.max);
  new Gauge({
    name: 'age_provider_redis_fallback_active',
    help: "1 while the rate limits count in this instance's memory because Redis did not answer (the breaker is open), else 0",
    registers: [registry],
    collect() {
      this.set(sources.redisFallbackActive() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'age_provider_change_feed_trusted',
    help: "1 while this instance hears the database's change announcements (client lookups are cached), 0 while the feed is down or silent",
    registers: [registry],
    collect() {
      this.set(sources.changeFeedTrusted() ? 1 : 0);
    },
  });
  const trustedList = (name: string, help: string, read: (list: TrustedListState) => number | undefined) =>
    new Gauge({
      name,
      help,
      labelNames: ['source'] as const,
      registers: [registry],
      collect() {
        this.reset();
        const list = sources.trustedList();
        const value = list && read(list);
        if (list && value !== undefined) this.set({ source: list.source }, value);
      },
    });
  trustedList(
    'age_provider_eu_av_trusted_list_issued_timestamp_seconds',
    'ListIssueDateTime of the eu_av trusted list in use (its age: time() minus this)',
    (list) => epochSeconds(list.list_issued),
  );
  trustedList(
    'age_provider_eu_av_trusted_list_next_update_timestamp_seconds',
    'NextUpdate of the eu_av trusted list in use',
    (list) => epochSeconds(list.next_update),
  );
  trustedList(
    'age_provider_eu_av_trusted_list_anchors',
    'Trust anchors taken from the eu_av trusted list in use (0: none was ever loaded)',
    (list) => list.anchors,
  );
  trustedList(
    'age_provider_eu_av_trusted_list_refresh_failing',
    "1 while the eu_av trusted list's last refresh failed (the last good list stays in use), else 0",
    (list) => (list.outcome === 'ok' ? 0 : 1),
  );
  trustedList(
    'age_provider_eu_av_trusted_list_stale',
    '1 while the eu_av trusted list is past its NextUpdate and the grace: not used, eu_av not offered',
    (list) => (list.stale ? 1 : 0),
  );
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
    flows: {
      started: (environment) => started.inc({ environment }),
      ended: ({ environment, outcome, challenge }) =>
        ended.inc({ challenge: challenge ?? 'none', outcome, environment }),
    },
    limitRefused: (limit) => refusals.inc({ limit }),
    databaseFailures: {
      queryFailed: (sqlState) =>
        queryFailures.inc({ sqlstate_class: sqlState && SQLSTATE.test(sqlState) ? sqlState.slice(0, 2) : 'none' }),
      acquireFailed: () => acquireFailures.inc(),
    },
    observe(ctx, seconds) {
      // The surface that claimed the request (lib/app/surfaces.ts) and the route pattern: bounded label sets, never raw paths.
      const surface = ctx.state.surface?.name ?? 'none';
      const route = routePatternOf(ctx) ?? 'none';
      duration.observe({ surface, route, method: ctx.method, status: `${Math.floor(ctx.status / 100)}xx` }, seconds);
    },
  };
}
