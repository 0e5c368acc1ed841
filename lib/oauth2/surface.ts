import type { OAuth2Services } from './services.js';
import type Koa from 'koa';
import compose from 'koa-compose';
import type Provider from 'oidc-provider';
import { clientCredentialsGuard } from '../http/input-guard.js';
import { rateLimit } from '../http/rate-limit.js';
import type { SurfaceBuilder } from '../http/surface.js';
import { rewriteEntryPoints } from './entry.js';
import { oauth2Outages } from './failures.js';
import { openFlowTransaction } from './flow-storage.js';
import { guardOAuth2Methods } from './method-guard.js';
import { OAUTH2_PATHS } from './protocol.js';
import { resourcesEndpoint } from './resources.js';

/** The provider routes we serve; anything else it knows (openid-configuration, logout confirm) stays unreachable. */
const PROVIDER_PATHS = new Set(
  [
    OAUTH2_PATHS.authorization,
    OAUTH2_PATHS.token,
    OAUTH2_PATHS.introspection,
    OAUTH2_PATHS.revocation,
    OAUTH2_PATHS.jwks,
    OAUTH2_PATHS.metadata,
  ].map((path) => path.toLowerCase()),
);
/** oidc-provider's resume route: the authorization route plus the interaction uid. */
const RESUME = new RegExp(`^${OAUTH2_PATHS.authorization}/[A-Za-z0-9_-]+$`, 'i');

/**
 * Runs oidc-provider (on the parent's context, so the parent's `proxy` and cookie keys apply), with a database outage
 * it answered as its own 500 rethrown for the surface to answer (oauth2Outages), and `around` just outside it. Build
 * it after every provider.use(): the provider's middleware is composed now.
 */
const runProvider = (provider: Provider, around: Koa.Middleware[] = []): Koa.Middleware =>
  compose([oauth2Outages(), ...around, ...provider.middleware]);

/**
 * The back channel a website's server calls (token, Resources, introspection, revocation and the legacy twins):
 * RFC 6749/6750 JSON only, a generous per-address limit (over it, a JSON 429 with Retry-After), Resources ahead of
 * the provider. Every path it is handed is one of those (lib/app/surfaces.ts), so once the method is checked and a legacy
 * twin rewritten, each call spends a point and is answered by Resources' handler or by the provider: no router.
 */
export const oauth2BackChannelSurface: SurfaceBuilder<OAuth2Services> = ({ runtime, provider }) => {
  const readResources = resourcesEndpoint(runtime);
  // Only the provider's endpoints authenticate clients; Resources reads a bearer token and answers any other scheme.
  const guard = clientCredentialsGuard();
  const provide = compose([guard, runProvider(provider)]);
  // The token exchange is one transaction of the flow's storage (flow-storage.ts); the other routes need none.
  const exchange = compose([guard, runProvider(provider, [openFlowTransaction(runtime.db, 'token')])]);
  const token = OAUTH2_PATHS.token.toLowerCase();
  return [
    guardOAuth2Methods(),
    rewriteEntryPoints(runtime),
    rateLimit(runtime.rateLimits.limiter('oauth2-back-channel-ip'), (ctx) => ctx.ip),
    (ctx, next) => {
      const path = ctx.path.toLowerCase();
      return path === OAUTH2_PATHS.resources
        ? readResources(ctx)
        : path === token
          ? exchange(ctx, next)
          : provide(ctx, next);
    },
  ];
};

/** The browser side: the entry points (and their legacy twins), the resume, the JWKS and the metadata. */
export const oauth2Surface: SurfaceBuilder<OAuth2Services> = ({ runtime, provider }) => {
  const provide = runProvider(provider);
  // The resume is one transaction of the flow's storage (flow-storage.ts); the other routes need none.
  const resume = runProvider(provider, [openFlowTransaction(runtime.db, 'resume')]);
  return [
    guardOAuth2Methods(),
    rewriteEntryPoints(runtime),
    (ctx, next) =>
      RESUME.test(ctx.path)
        ? resume(ctx, next)
        : PROVIDER_PATHS.has(ctx.path.toLowerCase())
          ? provide(ctx, next)
          : next(),
  ];
};
