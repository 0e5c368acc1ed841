import { PlatformRoutes } from '../route-table.js';
import { websiteActivity, websiteActivityExport } from '../../audit/activity.js';
import { websiteEvidence } from '../../evidence/evidence.js';
import { websiteIdOf } from '../../websites/identifiers.js';
import type { PlatformServices } from '../services.js';
import { activityRows } from '../activity-view.js';
import { accountOf } from '../authentication.js';
import { lastDays } from '../statistics-view.js';
import { renderWebsiteTab } from './website-routes.js';

/**
 * A website's Activity: its audit trail, newest first by pages, the whole trail as a JSON lines download, and the
 * evidence pack of a period (docs/evidence.md).
 */
export function activityRoutes(runtime: PlatformServices): PlatformRoutes {
  const routes = new PlatformRoutes();

  routes.get('/websites/:id/activity', 'view', async (ctx) => {
    const { websiteId } = websiteIdOf({ website_id: ctx.params.id });
    const before = typeof ctx.query.before === 'string' ? { before: ctx.query.before } : {};
    const page = await websiteActivity(runtime, accountOf(ctx), websiteId, before);
    const today = runtime.clock.now().toISOString().slice(0, 10);
    await renderWebsiteTab(ctx, runtime, websiteId, 'activity', {
      rows: activityRows(page.entries),
      next: page.next,
      older: 'before' in before,
      evidence: { from: lastDays(today)[0], to: today },
    });
  });

  routes.get('/websites/:id/evidence.json', 'view', async (ctx) => {
    const { websiteId } = websiteIdOf({ website_id: ctx.params.id });
    const pack = await websiteEvidence(runtime, accountOf(ctx), websiteId, { from: ctx.query.from, to: ctx.query.to });
    ctx.body = `${JSON.stringify(pack, null, 2)}\n`;
    ctx.type = 'application/json; charset=utf-8';
    ctx.set('Content-Disposition', `attachment; filename="website-${websiteId}-evidence.json"`);
    ctx.set('Cache-Control', 'no-store');
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
