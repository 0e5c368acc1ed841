import type Koa from 'koa';
import compose from 'koa-compose';
import type Provider from 'oidc-provider';
import { HttpError, oauthJsonError } from '../http/errors.js';
import { perMinuteSetting } from '../http/rate-limit.js';
import type { Runtime } from '../runtime.js';
import { rewriteEntryPoints } from './entry.js';
import { oauth2Outages } from './failures.js';
import { guardOAuth2Methods } from './method-guard.js';
import { BACK_CHANNEL_PATHS, OAUTH2_PATHS } from './paths.js';
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
/**
 * Per address and minute (`OAUTH2_RATE_LIMIT_PER_IP`): one website's server sends all of its site's calls, so the
 * ceiling is high; it stops hammering, not traffic. Counted per process: a shared store would add a write to every
 * token and Resources call.
 */
const BACK_CHANNEL_PER_IP = { name: 'oauth2-back-channel-ip', setting: 'OAUTH2_RATE_LIMIT_PER_IP', perMinute: 20_000 } as const;

/** Spends a point per back-channel call (after the legacy rewrite); over the limit is a JSON 429 with Retry-After. */
function limitBackChannel(runtime: Runtime): Koa.Middleware {
  const limiter = runtime.rateLimits.limiter({
    name: BACK_CHANNEL_PER_IP.name,
    points: perMinuteSetting(runtime.env, BACK_CHANNEL_PER_IP.setting, BACK_CHANNEL_PER_IP.perMinute),
    duration: 60,
    local: true,
  });
  return async (ctx, next) => {
    // Routers match case-insensitively and ignore a trailing slash: so does the limit.
    if (!BACK_CHANNEL.has(ctx.path.toLowerCase().replace(/\/$/, ''))) return next();
    try {
      await limiter.consume(ctx.ip);
    } catch (error) {
      if (!(error instanceof HttpError) || error.status !== 429) throw error;
      oauthJsonError(ctx, 429, 'too_many_requests', error.message, error.headers);
      return;
    }
    await next();
  };
}

/**
 * Mounts the OAuth2 surface on the parent app: entry rewrites, Resources, then oidc-provider itself running on the
 * parent's context (so the parent's `proxy` and cookie keys apply). Mount it last: its middlewares are composed
 * now, so every provider.use() must already be registered.
 */
export function mountOAuth2(app: Koa, runtime: Runtime, provider: Provider): void {
  const runProvider = compose(provider.middleware);
  app.use(guardOAuth2Methods());
  app.use(rewriteEntryPoints(runtime));
  app.use(oauth2Outages());
  app.use(limitBackChannel(runtime));
  app.use(resourcesRoutes(runtime).routes());
  app.use((ctx, next) => (isProviderPath(ctx.path) ? runProvider(ctx, next) : next()));
}
