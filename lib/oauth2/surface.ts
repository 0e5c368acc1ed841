import type Koa from 'koa';
import compose from 'koa-compose';
import type Provider from 'oidc-provider';
import type { Runtime } from '../runtime.js';
import { rewriteEntryPoints } from './entry.js';
import { OAUTH2_PATHS } from './paths.js';
import { resourcesRoutes } from './resources.js';

/** The provider routes we serve; anything else it knows (openid-configuration, logout confirm) stays unreachable. */
const PROVIDER_PATHS = new Set(
  [OAUTH2_PATHS.authorization, OAUTH2_PATHS.token, OAUTH2_PATHS.introspection, OAUTH2_PATHS.revocation, OAUTH2_PATHS.jwks, OAUTH2_PATHS.metadata]
    .map((path) => path.toLowerCase()),
);
/** oidc-provider's resume route: the authorization route plus the interaction uid. */
const RESUME = new RegExp(`^${OAUTH2_PATHS.authorization}/[A-Za-z0-9_-]+$`, 'i');

const isProviderPath = (path: string) => PROVIDER_PATHS.has(path.toLowerCase()) || RESUME.test(path);

/**
 * Mounts the OAuth2 surface on the parent app: entry rewrites, Resources, then oidc-provider itself running on the
 * parent's context (so the parent's `proxy` and cookie keys apply). Mount it last: its middlewares are composed
 * now, so every provider.use() must already be registered.
 */
export function mountOAuth2(app: Koa, runtime: Runtime, provider: Provider): void {
  const runProvider = compose(provider.middleware);
  app.use(rewriteEntryPoints(runtime));
  app.use(resourcesRoutes(runtime, provider).routes());
  app.use((ctx, next) => (isProviderPath(ctx.path) ? runProvider(ctx, next) : next()));
}
