import Router from '@koa/router';
import type { Database } from '../store/database.js';
import { settlesWithin } from '../time-limit.js';

/** Set when the server begins to shut down: load balancers stop sending before the listener closes. */
export interface Readiness {
  draining: boolean;
  /** what parts of the service that follow something outside report (e.g. eu_av's trusted list), shown when not empty */
  detail?(): Record<string, unknown>;
}

/** /readyz says "unavailable" when the database has not answered within this time (a frozen database must not hang it). */
const READY_WITHIN_MS = 2000;

const detailOf = (readiness: Readiness): { detail?: Record<string, unknown> } => {
  const detail = readiness.detail?.() ?? {};
  return Object.keys(detail).length ? { detail } : {};
};

/** /healthz: the process answers. /readyz: the database answers too, and the server is not shutting down. */
export function healthRoutes(db: Database, readiness: Readiness): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    if (readiness.draining) {
      ctx.status = 503;
      ctx.body = { status: 'draining' };
    } else if ((await settlesWithin(db.raw('select 1'), READY_WITHIN_MS)) === 'done') {
      ctx.body = { status: 'ready', ...detailOf(readiness) };
    } else {
      ctx.status = 503;
      ctx.body = { status: 'unavailable', ...detailOf(readiness) };
    }
  });
  return router;
}
