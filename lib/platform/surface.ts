import type { PlatformServices } from './services.js';
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { formBody } from '../http/body.js';
import { requireCsrf } from '../http/csrf.js';
import { sameOrigin } from '../http/same-origin.js';
import { seeOther } from '../http/see-other.js';
import type { SurfaceBuilder } from '../http/surface.js';
import { loadSession, PLATFORM_PATH, requireWebmaster, webmasterOf } from './authentication.js';
import { onceForms } from './once.js';
import { accountRoutes } from './routes/account-routes.js';
import { activityRoutes } from './routes/activity-routes.js';
import { verificationRoutes } from './routes/verification-routes.js';
import { authRoutes } from './routes/auth-routes.js';
import { confirmationRoutes } from './routes/confirmation-routes.js';
import { domainRoutes } from './routes/domain-routes.js';
import { mailedLinkRoutes, setPasswordRoutes } from './routes/password-routes.js';
import { policyRoutes } from './routes/policy-routes.js';
import { signInCodeRoutes } from './routes/sign-in-code-routes.js';
import { webhookRoutes } from './routes/webhook-routes.js';
import { websiteRoutes } from './routes/website-routes.js';

const SIGN_OUT = `${PLATFORM_PATH}/signout`;

/**
 * A sign-out from a browser without a live session (a repeat of the sign-out just done: a double click) has nothing
 * to end and no session its form token could be checked against: it lands where the first did, the sign-in page.
 */
const signedOutAlready: Middleware = async (ctx, next) => {
  if (ctx.method === 'POST' && ctx.path.toLowerCase().replace(/\/$/, '') === SIGN_OUT && !webmasterOf(ctx)) {
    seeOther(ctx, `${PLATFORM_PATH}/signin`, { noStore: true });
    return;
  }
  await next();
};

/**
 * The webmasters platform at /platform: server-rendered pages, every post from the issuer's origin and behind a CSRF
 * token bound to the session (so the session is loaded first), sessions in platform_sessions.
 */
export const platformSurface: SurfaceBuilder<PlatformServices> = ({ runtime }) => {
  const router = new Router({ prefix: PLATFORM_PATH });
  router.use(sameOrigin(runtime.config.issuer), formBody(), loadSession(runtime), signedOutAlready, requireCsrf);
  router.use(authRoutes(runtime).routes());
  // Codes and links are mailed: without a mail server there is no code to offer, and no registration but the operator's.
  if (runtime.config.mail) router.use(signInCodeRoutes(runtime, runtime.config.mail).routes(), mailedLinkRoutes(runtime, runtime.config.mail).routes());
  router.use(setPasswordRoutes(runtime).routes());
  const signedIn = new Router();
  signedIn.use(requireWebmaster, onceForms(runtime));
  signedIn.use(accountRoutes(runtime).routes(), websiteRoutes(runtime).routes(), confirmationRoutes(runtime).routes(), domainRoutes(runtime).routes(),
    policyRoutes(runtime).routes(), activityRoutes(runtime).routes(), verificationRoutes(runtime).routes(), webhookRoutes(runtime).routes());
  router.use(signedIn.routes());
  return [router.routes() as Middleware];
};
