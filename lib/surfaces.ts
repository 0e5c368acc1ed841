import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import compose from 'koa-compose';
import type Provider from 'oidc-provider';
import { checkerRoutes } from './checker/routes.js';
import { CHECKER_PATHS } from './checker/paths.js';
import { jsonErrors } from './external/errors.js';
import { externalApi } from './external/router.js';
import { EXTERNAL_PREFIX } from './external/surface.js';
import { requestDeadline } from './http/deadline.js';
import { inputGuard } from './http/input-guard.js';
import { oauthErrors } from './http/oauth-errors.js';
import { staticAssets } from './http/static-assets.js';
import type { ErrorShape } from './http/surface-errors.js';
import { interactionRouter } from './oauth2/interactions/router.js';
import { BACK_CHANNEL_PATHS, LEGACY_PATHS, OAUTH2_PATHS } from './oauth2/protocol.js';
import { backChannelSurface, browserOAuth2Surface } from './oauth2/surface.js';
import { PLATFORM_PATH } from './platform/authentication.js';
import { platformRouter } from './platform/router.js';
import { REQUIREMENT_PATH, requirementRoutes } from './requirement/routes.js';
import type { Runtime } from './runtime.js';

/** What the surfaces are built from, once, at start-up. */
export interface SurfaceDeps {
  runtime: Runtime;
  provider: Provider;
  health: Router;
}

/**
 * One surface of the service (ARCHITECTURE §2): which requests it claims, how it answers errors, whether the request
 * deadline and the input guard stand in front of it, and how it is built. `claims` sees the path lower-cased without
 * a trailing slash (routers match case-insensitively and ignore one).
 */
interface SurfaceRow {
  name: string;
  claims(path: string, ctx: Context, deps: SurfaceDeps): boolean;
  errors: ErrorShape;
  /** under REQUEST_TIMEOUT_MS and the input guard (health has its own bound; assets take no input) */
  guarded: boolean;
  build(deps: SurfaceDeps): Middleware | Promise<Middleware>;
}

const under = (prefix: string) => (path: string): boolean => path === prefix || path.startsWith(`${prefix}/`);
const oneOf = (paths: readonly string[]) => {
  const set = new Set(paths.map((path) => path.toLowerCase()));
  return (path: string): boolean => set.has(path);
};
const routes = (router: Router): Middleware => router.routes() as Middleware;

const BACK_CHANNEL = oneOf([...BACK_CHANNEL_PATHS, ...Object.keys(LEGACY_PATHS)]);
const INTERACTIONS = OAUTH2_PATHS.interaction('').toLowerCase();

/**
 * Every surface, in the order requests are offered to them; the first that claims a request serves it, and only its
 * middleware runs. The browser side of OAuth2 comes last: it also answers what nobody else claims (its 404 is the
 * visitor's error page). The challenges' own endpoints (a wallet's response, a federated callback) belong to the
 * interactions surface, which claims whatever their routers match.
 */
export const SURFACES: readonly SurfaceRow[] = [
  { name: 'oauth2-back-channel', claims: BACK_CHANNEL, errors: 'oauth', guarded: true, build: ({ runtime, provider }) => backChannelSurface(runtime, provider) },
  { name: 'operations', claims: oneOf(['/healthz', '/readyz']), errors: 'visitor', guarded: false, build: ({ health }) => routes(health) },
  { name: 'assets', claims: (path) => path.startsWith('/static/'), errors: 'visitor', guarded: false, build: () => staticAssets() },
  { name: 'external', claims: under(EXTERNAL_PREFIX), errors: 'external', guarded: true, build: ({ runtime }) => externalApi(runtime) },
  { name: 'requirement', claims: oneOf([REQUIREMENT_PATH]), errors: 'oauth', guarded: true, build: ({ runtime }) => routes(requirementRoutes(runtime)) },
  {
    name: 'checker',
    claims: (path) => path === CHECKER_PATHS.script.toLowerCase() || under('/v1/checker')(path),
    errors: 'visitor',
    guarded: true,
    build: ({ runtime, provider }) => routes(checkerRoutes(runtime, provider)),
  },
  { name: 'platform', claims: under(PLATFORM_PATH), errors: 'visitor', guarded: true, build: ({ runtime }) => routes(platformRouter(runtime)) },
  {
    name: 'interactions',
    // A challenge router's own routes, not its path-less `use` layers (those match every path).
    claims: (path, ctx, { runtime }) => path.startsWith(INTERACTIONS)
      || runtime.challenges.routes.some((router) => router.match(ctx.path, ctx.method).path.some((layer) => layer.methods.length > 0)),
    errors: 'visitor',
    guarded: true,
    build: async ({ runtime, provider }) => routes(await interactionRouter(runtime, provider)),
  },
  { name: 'oauth2', claims: () => true, errors: 'visitor', guarded: true, build: ({ runtime, provider }) => browserOAuth2Surface(runtime, provider) },
];

export interface ClaimedState {
  /** the surface serving this request (metrics label, error shape) */
  surface?: { name: string; errors: ErrorShape };
}

/**
 * Builds every surface and returns the one middleware that hands each request to the surface claiming it, with the
 * request deadline and the input guard in front where the row asks for them.
 */
export async function mountSurfaces(deps: SurfaceDeps): Promise<Middleware> {
  const built: Array<{ row: SurfaceRow; serve: Middleware }> = [];
  const guard = [requestDeadline(deps.runtime.config.requestTimeoutMs), inputGuard()];
  // One error middleware per JSON shape, around the whole surface (its guards included); the visitor's page is the
  // outermost handler's (lib/http/fallback.ts), for every surface.
  const errorsOf: Record<ErrorShape, Middleware[]> = { external: [jsonErrors(deps.runtime.log)], oauth: [oauthErrors(deps.runtime.log)], visitor: [] };
  // Built in order, the OAuth2 ones last of all: they compose the provider's middleware, so every provider.use() must be in.
  for (const row of [...SURFACES.filter((row) => !row.name.startsWith('oauth2')), ...SURFACES.filter((row) => row.name.startsWith('oauth2'))]) {
    const serve = await row.build(deps);
    built.push({ row, serve: compose([...errorsOf[row.errors], ...(row.guarded ? guard : []), serve]) });
  }
  const ordered = SURFACES.map((row) => built.find((entry) => entry.row === row)!);
  return (ctx, next) => {
    const path = ctx.path.toLowerCase().replace(/(.)\/$/, '$1');
    const claimed = ordered.find(({ row }) => row.claims(path, ctx, deps))!;
    (ctx.state as ClaimedState).surface = { name: claimed.row.name, errors: claimed.row.errors };
    return claimed.serve(ctx, next);
  };
}
