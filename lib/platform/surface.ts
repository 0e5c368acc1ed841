import Router from '@koa/router';
import type { Middleware } from 'koa';
import { formBody } from '../http/body.js';
import { requireCsrf } from '../http/csrf.js';
import { sameOrigin } from '../http/same-origin.js';
import { seeOther } from '../http/see-other.js';
import type { SurfaceBuilder } from '../http/surface.js';
import type { PlatformServices } from './services.js';
import { loadSession, PLATFORM_PATH, requireWebmaster, webmasterOf } from './authentication.js';
import { onceForms } from './once.js';
import { publicRows, type PlatformRoute, type PlatformRoutes } from './route-table.js';
import { accountChoiceRoutes } from './routes/account-choice-routes.js';
import { accountRoutes } from './routes/account-routes.js';
import { activityRoutes } from './routes/activity-routes.js';
import { verificationRoutes } from './routes/verification-routes.js';
import { authRoutes } from './routes/auth-routes.js';
import { confirmationRoutes } from './routes/confirmation-routes.js';
import { domainRoutes } from './routes/domain-routes.js';
import { keyRoutes } from './routes/key-routes.js';
import { memberRoutes } from './routes/member-routes.js';
import { mailedLinkRoutes, setPasswordRoutes } from './routes/password-routes.js';
import { policyRoutes } from './routes/policy-routes.js';
import { secondFactorRoutes, secondFactorSignInRoutes } from './routes/second-factor-routes.js';
import { securityRoutes } from './routes/security-routes.js';
import { signInCodeRoutes } from './routes/sign-in-code-routes.js';
import { wayOutRoutes } from './routes/way-out-routes.js';
import { webhookMessageRoutes } from './routes/webhook-message-routes.js';
import { webhookRoutes } from './routes/webhook-routes.js';
import { websiteRoutes } from './routes/website-routes.js';

/** The posts that can end this browser's own session: signing out, and ending it from the session list. */
const SIGN_OUTS = new Set([`${PLATFORM_PATH}/signout`, `${PLATFORM_PATH}/account/sessions/end`]);

/**
 * A sign-out (also of this session from the session list) from a browser without a live session (a repeat of the
 * sign-out just done: a double click) has nothing
 * to end and no session its form token could be checked against: it lands where the first did, the sign-in page.
 */
const signedOutAlready: Middleware = async (ctx, next) => {
  if (ctx.method === 'POST' && SIGN_OUTS.has(ctx.path.toLowerCase().replace(/\/$/, '')) && !webmasterOf(ctx)) {
    seeOther(ctx, `${PLATFORM_PATH}/signin`, { noStore: true });
    return;
  }
  await next();
};

/** The platform's routes: the sign-in flows (every route public), the invitation's page, and the signed-in groups. */
function platformRouters(runtime: PlatformServices): {
  open: Router[];
  declared: PlatformRoutes[];
  signedIn: PlatformRoutes[];
} {
  return {
    // Codes and links are mailed: without a mail server there is no code to offer, and no registration but the operator's.
    open: [
      authRoutes(runtime),
      ...(runtime.config.mail
        ? [signInCodeRoutes(runtime, runtime.config.mail), mailedLinkRoutes(runtime, runtime.config.mail)]
        : []),
      setPasswordRoutes(runtime),
    ],
    // Reached by a session still waiting for its second factor, which the signed-in group sends here.
    declared: [accountChoiceRoutes(runtime), secondFactorSignInRoutes(runtime)],
    signedIn: [
      accountRoutes(runtime),
      securityRoutes(runtime),
      secondFactorRoutes(runtime),
      keyRoutes(runtime),
      memberRoutes(runtime),
      websiteRoutes(runtime),
      confirmationRoutes(runtime),
      domainRoutes(runtime),
      policyRoutes(runtime),
      activityRoutes(runtime),
      verificationRoutes(runtime),
      webhookRoutes(runtime),
      webhookMessageRoutes(runtime),
      wayOutRoutes(runtime),
    ],
  };
}

/**
 * Every route of the platform with the access it needs (lib/platform/route-table.ts): what the role property test
 * drives, read from the same routers the surface serves.
 */
export function platformRouteTable(runtime: PlatformServices): PlatformRoute[] {
  const { open, declared, signedIn } = platformRouters(runtime);
  return [...open.flatMap(publicRows), ...[...declared, ...signedIn].flatMap((routes) => routes.table)];
}

/**
 * The webmasters platform at /platform: server-rendered pages, every post from the issuer's origin and behind a CSRF
 * token bound to the session (so the session is loaded first), sessions in platform_sessions.
 */
export const platformSurface: SurfaceBuilder<PlatformServices> = ({ runtime }) => {
  const router = new Router({ prefix: PLATFORM_PATH });
  router.use(sameOrigin(runtime.config.issuer), formBody(), loadSession(runtime), signedOutAlready, requireCsrf);
  const { open, declared, signedIn } = platformRouters(runtime);
  for (const routes of open) router.use(routes.routes());
  for (const routes of declared) router.use(routes.router.routes());
  const signedInRouter = new Router();
  signedInRouter.use(requireWebmaster, onceForms(runtime));
  signedInRouter.use(...signedIn.map((routes) => routes.router.routes()));
  router.use(signedInRouter.routes());
  return [router.routes() as Middleware];
};
