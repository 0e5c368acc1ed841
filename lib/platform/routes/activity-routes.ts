import { PlatformRoutes } from '../route-table.js';
import { websiteActivity, websiteActivityExport } from '../../audit/activity.js';
import { websiteIdOf } from '../../websites/identifiers.js';
import type { PlatformServices } from '../services.js';
import { activityRows } from '../activity-view.js';
import { accountOf } from '../authentication.js';
import { renderWebsiteTab } from './website-routes.js';

/** A website's Activity: its audit trail, newest first by pages, and the whole trail as a JSON lines download. */
export function activityRoutes(runtime: PlatformServices): PlatformRoutes {
  const routes = new PlatformRoutes();

  routes.get('/websites/:id/activity', 'view', async (ctx) => {
    const { websiteId } = websiteIdOf({ website_id: ctx.params.id });
    const before = typeof ctx.query.before === 'string' ? { before: ctx.query.before } : {};
    const page = await websiteActivity(runtime, accountOf(ctx), websiteId, before);
    await renderWebsiteTab(ctx, runtime, websiteId, 'activity', {
      rows: activityRows(page.entries),
      next: page.next,
      older: 'before' in before,
    });
  });

  routes.get('/websites/:id/activity.jsonl', 'view', async (ctx) => {
    const { websiteId } = websiteIdOf({ website_id: ctx.params.id });
    ctx.body = await websiteActivityExport(runtime, accountOf(ctx), websiteId);
    ctx.type = 'application/jsonl; charset=utf-8';
    ctx.set('Content-Disposition', `attachment; filename="website-${websiteId}-audit.jsonl"`);
    ctx.set('Cache-Control', 'no-store');
  });

  return routes;
}
