import { PlatformRoutes } from '../route-table.js';
import { seeOther } from '../../http/see-other.js';
import type { PlatformServices } from '../services.js';
import { checkDomainVerification } from '../../websites/index.js';
import { websiteIdOf } from '../../websites/identifiers.js';
import { PLATFORM_PATH, originOf, accountOf } from '../authentication.js';

/** "Check now" of a website's domain verification (views/platform/domain.njk): the page shows the outcome. */
export function domainRoutes(runtime: PlatformServices): PlatformRoutes {
  const routes = new PlatformRoutes();
  routes.post('/websites/:id/domain/check', 'change', async (ctx) => {
    const { websiteId } = websiteIdOf({ website_id: ctx.params.id });
    await checkDomainVerification(runtime, accountOf(ctx), websiteId, originOf(ctx));
    seeOther(ctx, `${PLATFORM_PATH}/websites/${websiteId}/settings#domain`, { noStore: true });
  });
  return routes;
}
