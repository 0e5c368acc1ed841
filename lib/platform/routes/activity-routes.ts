import Router from '@koa/router';
import { websiteActivity, websiteActivityExport } from '../../audit/activity.js';
import { websiteIdOf } from '../../websites/identifiers.js';
import type { PlatformServices } from '../services.js';
import { activityRows } from '../activity-view.js';
import { webmasterOf } from '../authentication.js';
import { renderWebsiteTab } from './website-routes.js';

/** A website's Activity: its audit trail, newest first by pages, and the whole trail as a JSON lines download. */
export function activityRoutes(runtime: PlatformServices): Router {
  const router = new Router();

  router.get('/websites/:id/activity', async (ctx) => {
    const { websiteId } = websiteIdOf({ website_id: ctx.params.id });
    const before = typeof ctx.query.before === 'string' ? { before: ctx.query.before } : {};
    const page = await websiteActivity(runtime, webmasterOf(ctx)!.id, websiteId, before);
    await renderWebsiteTab(ctx, runtime, websiteId, 'activity', { rows: activityRows(page.entries), next: page.next, older: 'before' in before });
  });

  router.get('/websites/:id/activity.jsonl', async (ctx) => {
    const { websiteId } = websiteIdOf({ website_id: ctx.params.id });
    ctx.body = await websiteActivityExport(runtime, webmasterOf(ctx)!.id, websiteId);
    ctx.type = 'application/jsonl; charset=utf-8';
    ctx.set('Content-Disposition', `attachment; filename="website-${websiteId}-audit.jsonl"`);
    ctx.set('Cache-Control', 'no-store');
  });

  return router;
}
