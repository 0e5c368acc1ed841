import type Router from '@koa/router';
import Koa from 'koa';
import type { Metrics } from './metrics.js';

/**
 * The operations listener's app (OPERATIONS_PORT, loopback by default): /metrics, which says too much about the
 * service for the public port, beside /healthz and /readyz.
 */
export function operationsApp(health: Router, metrics: Metrics): Koa {
  const app = new Koa();
  app.silent = true;
  app.use(health.routes());
  app.use(metrics.routes.routes());
  return app;
}
