import type Koa from 'koa';
import compose from 'koa-compose';
import type Provider from 'oidc-provider';
import type { Runtime } from '../runtime.js';
import { rewriteEntryPoints } from './entry.js';
import { oauth2Outages } from './failures.js';
import { guardOAuth2Methods } from './method-guard.js';
import { BACK_CHANNEL_PATHS, OAUTH2_PATHS } from './protocol.js';
import { resourcesRoutes } from './resources.js';

/** The provider routes we serve; anything else it knows (openid-configuration, logout confirm) stays unreachable. */
const PROVIDER_PATHS = new Set(
  [OAUTH2_PATHS.authorization, OAUTH2_PATHS.token, OAUTH2_PATHS.introspection, OAUTH2_PATHS.revocation, OAUTH2_PATHS.jwks, OAUTH2_PATHS.metadata]
    .map((path) => path.toLowerCase()),
);
/** oidc-provider's resume route: the authorization route plus the interaction uid. */
const RESUME = new RegExp(`^${OAUTH2_PATHS.authorization}/[A-Za-z0-9_-]+$`, 'i');

const isProviderPath = (path: string) => PROVIDER_PATHS.has(path.toLowerCase()) || RESUME.test(path);

/** The back-channel paths a stranger can call without a browser (each costs a client or token lookup). */
const BACK_CHANNEL = new Set(BACK_CHANNEL_PATHS);
/** Spends a point per back-channel call (after the legacy rewrite); over the limit is a JSON 429 with Retry-After. */
function limitBackChannel(runtime: Runtime): Koa.Middleware {
  const limiter = runtime.rateLimits.limiter('oauth2-back-channel-ip');
  return async (ctx, next) => {
    // Routers match case-insensitively and ignore a trailing slash: so does the limit.
    if (!BACK_CHANNEL.has(ctx.path.toLowerCase().replace(/\/$/, ''))) return next();
    // Over the limit: a 429 with Retry-After, in the surface's OAuth2 JSON.
    await limiter.consume(ctx.ip);
    await next();
  };
}

/** Runs oidc-provider (on the parent's context, so the parent's `proxy` and cookie keys apply) for the routes we serve. */
function providerRoutes(provider: Provider): Koa.Middleware {
  const runProvider = compose(provider.middleware);
  return (ctx, next) => (isProviderPath(ctx.path) ? runProvider(ctx, next) : next());
}

/**
 * The back channel a website's server calls (token, Resources, introspection, revocation and the legacy twins):
 * RFC 6749/6750 JSON only, a generous per-address limit, Resources ahead of the provider. Build it after every
 * provider.use(): the provider's middleware is composed now.
 */
export function backChannelSurface(runtime: Runtime, provider: Provider): Koa.Middleware {
  return compose([guardOAuth2Methods(), rewriteEntryPoints(runtime), oauth2Outages(), limitBackChannel(runtime), resourcesRoutes(runtime).routes() as Koa.Middleware, providerRoutes(provider)]);
}

/** The browser side: the entry points (and their legacy twins), the resume, the JWKS and the metadata. */
export function browserOAuth2Surface(runtime: Runtime, provider: Provider): Koa.Middleware {
  return compose([guardOAuth2Methods(), rewriteEntryPoints(runtime), oauth2Outages(), providerRoutes(provider)]);
}
