import type { Context } from 'koa';
import { seeOther } from '../../http/see-other.js';
import { Refusal } from '../../refusal.js';
import type { PlatformServices } from '../services.js';
import { acceptInvitation, previewInvitation } from '../../webmasters/invitations.js';
import { membershipsOf } from '../../webmasters/members.js';
import { ID_PATTERN } from '../../websites/schemas/path-parameters.js';
import { openAccount, PLATFORM_LANDING, PLATFORM_PATH, rememberInvitation, webmasterOf } from '../authentication.js';
import { formatTimestamp, renderPage } from '../page.js';
import { PlatformRoutes } from '../route-table.js';

const ID = new RegExp(ID_PATTERN);

/**
 * The accounts a webmaster belongs to and the one their session acts on; and an invitation's link, which adds the
 * signed-in webmaster to the inviting account only when they hold the invited address (docs/team.md "Invitations").
 */
export function accountChoiceRoutes(runtime: PlatformServices): PlatformRoutes {
  const routes = new PlatformRoutes();

  routes.get('/accounts', 'signed-in', async (ctx) => {
    const webmaster = webmasterOf(ctx)!;
    renderPage(ctx, 'accounts.njk', {
      memberships: await membershipsOf(runtime.db, webmaster.id),
      current: webmaster.account?.id,
    });
  });

  routes.post('/accounts/:account/open', 'signed-in', async (ctx) => {
    const accountId = ID.test(ctx.params.account ?? '') ? Number(ctx.params.account) : 0;
    const memberships = await membershipsOf(runtime.db, webmasterOf(ctx)!.id);
    if (!memberships.some((membership) => membership.accountId === accountId))
      return seeOther(ctx, `${PLATFORM_PATH}/accounts`, { noStore: true });
    await openAccount(ctx, runtime, accountId);
    seeOther(ctx, PLATFORM_LANDING, { noStore: true });
  });

  const invitationPage = async (ctx: Context, status = 200, refused = false): Promise<void> => {
    const preview = await previewInvitation(runtime.db, runtime.clock, ctx.params.token ?? '');
    const webmaster = webmasterOf(ctx);
    if (preview && !webmaster) rememberInvitation(ctx, ctx.params.token ?? '');
    renderPage(
      ctx,
      'invitation.njk',
      {
        invitation: preview && { ...preview, expiresAt: formatTimestamp(preview.expiresAt) },
        matches: preview !== undefined && webmaster !== undefined && webmaster.email === preview.email,
        refused,
      },
      preview ? status : 404,
    );
  };

  // The link's token is in the path: the page sends no Referer (the security headers' policy) and is never cached.
  routes.get('/invitation/:token', 'public', (ctx) => invitationPage(ctx));

  routes.post('/invitation/:token', 'signed-in', async (ctx) => {
    let joined;
    try {
      joined = await acceptInvitation(runtime.db, runtime.clock, ctx.params.token ?? '', webmasterOf(ctx)!, ctx.ip);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      return invitationPage(ctx, 400, true);
    }
    await openAccount(ctx, runtime, joined.accountId);
    seeOther(ctx, PLATFORM_LANDING, { noStore: true });
  });

  return routes;
}
