import type { Context } from 'koa';
import type { PlatformServices } from '../services.js';
import { Refusal } from '../../refusal.js';
import { OUTCOMES, VERIFICATION_ID_PATTERN } from '../../verification/listing-schemas.js';
import { allVerifications, getVerification, listVerifications } from '../../verification/listing.js';
import { websiteIdOf, websiteVerificationOf } from '../../websites/identifiers.js';
import { accountOf } from '../authentication.js';
import { PlatformRoutes } from '../route-table.js';
import { CSV_MAX_ROWS, filtersOf, ruleLabel, verificationsCsv } from '../verification-view.js';
import { renderWebsiteTab, websitePath } from './website-routes.js';
import { seeOther } from '../../http/see-other.js';

/** How long flows are listed, in whole hours: a verification's lifetime and its retention after expiry. */
const keptHours = (runtime: PlatformServices): number =>
  Math.round((runtime.config.verificationTtl + runtime.config.verificationRetention) / 3600);

/**
 * A website's Verifications: the flows one by one with the API's filters (lib/verification/listing.ts), a search by
 * the id the website received, each flow's page, and a CSV of what the filters selected.
 */
export function verificationRoutes(runtime: PlatformServices): PlatformRoutes {
  const routes = new PlatformRoutes();
  const ownerOf = (ctx: Context): number => accountOf(ctx);
  const common = { outcomes: OUTCOMES, keptHours: keptHours(runtime), csvMax: CSV_MAX_ROWS };

  routes.get('/websites/:id/verifications', 'view', async (ctx) => {
    const { websiteId } = websiteIdOf({ website_id: ctx.params.id });
    const { id, ...query } = filtersOf(ctx.query);
    if (id !== undefined) {
      // A search by id: its page when this website has it, else the list saying it was not found.
      const found =
        new RegExp(VERIFICATION_ID_PATTERN).test(id) &&
        (await getVerification(runtime, ownerOf(ctx), websiteId, id).then(
          () => true,
          (error: unknown) => {
            if (error instanceof Refusal && error.kind === 'not_found') return false;
            throw error;
          },
        ));
      if (found) return seeOther(ctx, `${websitePath(websiteId, 'verifications')}/${encodeURIComponent(id)}`);
    }
    let page: Awaited<ReturnType<typeof listVerifications>> = { verifications: [], next: null };
    let problem: string | undefined;
    try {
      page = await listVerifications(runtime, ownerOf(ctx), websiteId, query);
    } catch (error) {
      if (!(error instanceof Refusal) || error.kind !== 'invalid') throw error;
      problem = error.message;
    }
    const { cursor: _cursor, ...filters } = query;
    const search = new URLSearchParams(filters).toString();
    await renderWebsiteTab(
      ctx,
      runtime,
      websiteId,
      'verifications',
      {
        ...common,
        filters,
        search,
        flows: page.verifications,
        next: page.next,
        older: query.cursor !== undefined,
        notFound: id !== undefined ? id : undefined,
        problem,
      },
      problem ? 400 : 200,
    );
  });

  routes.get('/websites/:id/verifications.csv', 'view', async (ctx) => {
    const { websiteId } = websiteIdOf({ website_id: ctx.params.id });
    const { cursor: _cursor, id: _id, ...filters } = filtersOf(ctx.query);
    ctx.body = verificationsCsv(await allVerifications(runtime, ownerOf(ctx), websiteId, filters, CSV_MAX_ROWS));
    ctx.type = 'text/csv; charset=utf-8';
    ctx.set('Content-Disposition', `attachment; filename="website-${websiteId}-verifications.csv"`);
    ctx.set('Cache-Control', 'no-store');
  });

  routes.get('/websites/:id/verifications/:verification', 'view', async (ctx) => {
    const { websiteId, verificationId } = websiteVerificationOf({
      website_id: ctx.params.id,
      verification_id: ctx.params.verification,
    });
    const flow = await getVerification(runtime, ownerOf(ctx), websiteId, verificationId);
    await renderWebsiteTab(ctx, runtime, websiteId, 'verifications', {
      ...common,
      flow,
      rules: flow.rules.map(ruleLabel),
    });
  });

  return routes;
}
