import Router from '@koa/router';
import type { Database } from '../store/database.js';

/** /healthz: the process answers. /readyz: the database answers too. For load balancers. */
export function healthRoutes(db: Database): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    try {
      await db.raw('select 1');
      ctx.body = { status: 'ready' };
    } catch {
      ctx.status = 503;
      ctx.body = { status: 'unavailable' };
    }
  });
  return router;
}
