import { seeOther } from '../../http/see-other.js';
import { textField } from '../../http/form.js';
import { Refusal } from '../../refusal.js';
import type { PlatformServices } from '../services.js';
import { closeAccount } from '../../webmasters/accounts.js';
import { deleteWebsite, getWebsite } from '../../websites/index.js';
import { websiteIdOf } from '../../websites/identifiers.js';
import { accountOf, endSession, originOf, PLATFORM_LANDING, PLATFORM_PATH, webmasterOf } from '../authentication.js';
import { PlatformRoutes } from '../route-table.js';

/**
 * Deleting a website and closing the account (docs/team.md "A way out"): each asks first on its confirmation page
 * (lib/platform/routes/confirmation-routes.ts), where the website's name or the account's address is typed back; a
 * mismatch returns there and changes nothing.
 */
export function wayOutRoutes(runtime: PlatformServices): PlatformRoutes {
  const routes = new PlatformRoutes();

  routes.post('/websites/:id/delete', 'change', async (ctx) => {
    const { websiteId } = websiteIdOf({ website_id: ctx.params.id });
    const website = await getWebsite(runtime, accountOf(ctx), websiteId);
    if (textField(ctx.request.body, 'confirm').trim() !== website.name.trim()) {
      return seeOther(ctx, `${PLATFORM_PATH}/websites/${websiteId}/delete?mismatch=1`, { noStore: true });
    }
    try {
      await deleteWebsite(runtime, accountOf(ctx), websiteId, originOf(ctx));
    } catch (error) {
      // Deleted a moment ago (a double click, another member): it is gone, as asked.
      if (!(error instanceof Refusal) || error.kind !== 'not_found') throw error;
    }
    seeOther(ctx, `${PLATFORM_LANDING}?saved=deleted`, { noStore: true });
  });

  routes.post('/account/close', 'ownership', async (ctx) => {
    const { account } = webmasterOf(ctx)!;
    if (textField(ctx.request.body, 'confirm').trim().toLowerCase() !== account!.email.toLowerCase()) {
      return seeOther(ctx, `${PLATFORM_PATH}/account/close?mismatch=1`, { noStore: true });
    }
    // The founding login's sessions go with its row; other members' sessions lose the account with their membership.
    await closeAccount(runtime.db, runtime.clock, account!.id);
    await endSession(ctx, runtime);
    seeOther(ctx, `${PLATFORM_PATH}/signin?closed=1`, { noStore: true });
  });

  return routes;
}
