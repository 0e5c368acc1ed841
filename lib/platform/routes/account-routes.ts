import Router from '@koa/router';
import type { PlatformServices } from '../services.js';
import { describeApiToken, issueApiToken } from '../../webmasters/api-tokens.js';
import { originOf, PLATFORM_PATH, webmasterOf } from '../authentication.js';
import { formatTimestamp, renderPage } from '../page.js';
import { seeOther } from '../../http/see-other.js';
import { newApiToken } from '../one-time-display.js';

/** The Account page and its "Authorization Token" section (Account, Authorization Token, Generate). */
export function accountRoutes(runtime: PlatformServices): Router {
  const router = new Router();

  router.get('/account', async (ctx) => {
    const webmasterId = webmasterOf(ctx)!.id;
    const newToken = newApiToken.take(ctx, runtime, webmasterId);
    const active = await describeApiToken(runtime.db, webmasterId);
    renderPage(ctx, 'account.njk', {
      newToken,
      token: active && {
        createdAt: formatTimestamp(active.createdAt),
        lastUsedAt: active.lastUsedAt && formatTimestamp(active.lastUsedAt),
      },
    });
  });

  // Generating revokes the previous token (issueApiToken); only its hash is stored, so this is the one chance to show it.
  router.post('/account/token', async (ctx) => {
    const webmasterId = webmasterOf(ctx)!.id;
    newApiToken.hold(ctx, runtime, webmasterId, await issueApiToken(runtime.db, runtime.clock, webmasterId, originOf(ctx)));
    seeOther(ctx, `${PLATFORM_PATH}/account`, { noStore: true });
  });

  return router;
}
