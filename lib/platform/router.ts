import Router from '@koa/router';
import { formBody } from '../http/body.js';
import { requireCsrf } from '../http/csrf.js';
import { sameOrigin } from '../http/same-origin.js';
import type { Runtime } from '../runtime.js';
import { loadSession, PLATFORM_PATH, requireWebmaster } from './authentication.js';
import { accountRoutes } from './routes/account-routes.js';
import { activityRoutes } from './routes/activity-routes.js';
import { authRoutes } from './routes/auth-routes.js';
import { confirmationRoutes } from './routes/confirmation-routes.js';
import { domainRoutes } from './routes/domain-routes.js';
import { webhookRoutes } from './routes/webhook-routes.js';
import { websiteRoutes } from './routes/website-routes.js';

/**
 * The webmasters platform at /platform: server-rendered pages, every post from the issuer's origin and behind a CSRF
 * token bound to the session (so the session is loaded first), sessions in platform_sessions.
 */
export function platformRouter(runtime: Runtime): Router {
  const router = new Router({ prefix: PLATFORM_PATH });
  router.use(sameOrigin(runtime.config.issuer), formBody(), loadSession(runtime), requireCsrf);
  router.use(authRoutes(runtime).routes());
  const signedIn = new Router();
  signedIn.use(requireWebmaster);
  signedIn.use(accountRoutes(runtime).routes(), websiteRoutes(runtime).routes(), confirmationRoutes(runtime).routes(), domainRoutes(runtime).routes(),
    activityRoutes(runtime).routes(), webhookRoutes(runtime).routes());
  router.use(signedIn.routes());
  return router;
}
