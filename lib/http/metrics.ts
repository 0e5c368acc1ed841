import Router from '@koa/router';
import type { Middleware } from 'koa';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** The surface a path belongs to: a bounded label set, never raw paths (ids and codes would explode cardinality). */
function surfaceOf(path: string): string {
  if (path.startsWith('/external/')) return 'external';
  if (path.startsWith('/platform')) return 'platform';
  if (path.startsWith('/v1/oauth2/token') || path.startsWith('/api/oauth2/token')) return 'token';
  if (path.startsWith('/v1/oauth2/resources') || path.startsWith('/api/oauth2/resources')) return 'resources';
  if (path.startsWith('/v1/oauth2/interaction/')) return 'interaction';
  if (path.startsWith('/v1/oauth2/') || path.startsWith('/api/oauth2/')) return 'oauth2';
  if (path.startsWith('/v1/requirement')) return 'requirement';
  if (path.startsWith('/static/')) return 'static';
  return 'other';
}

export interface Metrics {
  /** Times every request by surface, method and status class. */
  middleware: Middleware;
  /** GET /metrics in the Prometheus text format. */
  routes: Router;
}

/** Prometheus metrics for operators: request latency per surface plus the process defaults (memory, event loop, GC). */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'age_provider_http_request_duration_seconds',
    help: 'HTTP request duration by surface, method and status class',
    labelNames: ['surface', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const routes = new Router();
  routes.get('/metrics', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });
  return {
    routes,
    middleware: async (ctx, next) => {
      const end = duration.startTimer({ surface: surfaceOf(ctx.path), method: ctx.method });
      try {
        await next();
      } finally {
        end({ status: `${Math.floor(ctx.status / 100)}xx` });
      }
    },
  };
}
