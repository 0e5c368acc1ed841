import type { PlatformServices } from '../services.js';
import { membershipsOf } from '../../webmasters/members.js';
import { webmasterOf } from '../authentication.js';
import { renderPage } from '../page.js';
import { PlatformRoutes } from '../route-table.js';

/** The Account page: who is signed in, the account the session acts on and the role held there, and the ways on. */
export function accountRoutes(runtime: PlatformServices): PlatformRoutes {
  const routes = new PlatformRoutes();

  routes.get('/account', 'signed-in', async (ctx) => {
    const memberships = await membershipsOf(runtime.db, webmasterOf(ctx)!.id);
    renderPage(ctx, 'account.njk', { others: memberships.length > 1 });
  });

  return routes;
}
