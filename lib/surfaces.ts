import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import compose from 'koa-compose';
import type Provider from 'oidc-provider';
import { BRAND_PATHS } from './branding/assets.js';
import { brandingAssets } from './branding/index.js';
import { checkerRoutes } from './checker/routes.js';
import { CHECKER_PATHS } from './checker/paths.js';
import { jsonErrors } from './external/errors.js';
import { externalApi } from './external/router.js';
import { EXTERNAL_PREFIX } from './external/surface.js';
import { requestDeadline } from './http/deadline.js';
import { homeRoutes } from './http/home.js';
import { inputGuard } from './http/input-guard.js';
import { oauthErrors } from './http/oauth-errors.js';
import { staticAssets } from './http/static-assets.js';
import type { ErrorShape } from './http/surface-errors.js';
import { interactionRouter } from './oauth2/interactions/router.js';
import { BACK_CHANNEL_PATHS, LEGACY_PATHS, OAUTH2_PATHS } from './oauth2/protocol.js';
import { backChannelSurface, browserOAuth2Surface } from './oauth2/surface.js';
import { PLATFORM_PATH } from './platform/authentication.js';
import { platformRouter } from './platform/router.js';
import { POLICIES_PATH, policiesRoutes } from './requirement/policies.js';
import { REQUIREMENT_PATH, requirementRoutes } from './requirement/routes.js';
import type { Runtime } from './runtime.js';

/** What the surfaces are built from, once, at start-up. */
export interface SurfaceDeps {
  runtime: Runtime;
  provider: Provider;
  health: Router;
}

/** Whether a surface claims a request; `path` is the request's path lower-cased without a trailing slash. */
type Claim = (path: string, ctx: Context) => boolean;

/**
 * One surface of the service (ARCHITECTURE §2): which requests it claims, how it answers errors, whether the request
 * deadline and the input guard stand in front of it, and how it is built. `claims` is made once, at start-up, from
 * what the service is built of; it sees the path lower-cased without a trailing slash (routers match
 * case-insensitively and ignore one).
 */
interface SurfaceRow {
  name: string;
  claims(deps: SurfaceDeps): Claim;
  errors: ErrorShape;
  /** under REQUEST_TIMEOUT_MS and the input guard (health has its own bound; assets take no input) */
  guarded: boolean;
  /** its middleware, in order (composed in one chain with the error shape and the guards) */
  build(deps: SurfaceDeps): Middleware | Middleware[] | Promise<Middleware>;
}

const under = (prefix: string): Claim => (path) => path === prefix || path.startsWith(`${prefix}/`);
const oneOf = (paths: readonly string[]): Claim => {
  const set = new Set(paths.map((path) => path.toLowerCase()));
  return (path) => set.has(path);
};
const routes = (router: Router): Middleware => router.routes() as Middleware;

const BACK_CHANNEL = oneOf([...BACK_CHANNEL_PATHS, ...Object.keys(LEGACY_PATHS)]);
const INTERACTIONS = OAUTH2_PATHS.interaction('').toLowerCase();
const CHECKER = under('/v1/checker');
const CHECKER_SCRIPT = CHECKER_PATHS.script.toLowerCase();

/** The challenges' own routes, not their routers' path-less `use` layers (those match every path). */
function challengeRoutes(runtime: Runtime): Claim {
  const layers = runtime.challenges.routes.flatMap((router) => router.stack.filter((layer) => layer.methods.length > 0));
  return (_path, ctx) => layers.some((layer) => layer.match(ctx.path));
}

/**
 * Every surface, in the order requests are offered to them; the first that claims a request serves it, and only its
 * middleware runs. The browser side of OAuth2 comes last: it also answers what nobody else claims (its 404 is the
 * visitor's error page). The challenges' own endpoints (a wallet's response, a federated callback) belong to the
 * interactions surface, which claims whatever their routes match.
 */
export const SURFACES: readonly SurfaceRow[] = [
  { name: 'oauth2-back-channel', claims: () => BACK_CHANNEL, errors: 'oauth', guarded: true, build: ({ runtime, provider }) => backChannelSurface(runtime, provider) },
  { name: 'operations', claims: () => oneOf(['/healthz', '/readyz']), errors: 'visitor', guarded: false, build: ({ health }) => routes(health) },
  {
    name: 'assets',
    claims: () => (path) => path.startsWith('/static/') || path.startsWith(BRAND_PATHS.prefix) || path === BRAND_PATHS.favicon,
    errors: 'visitor',
    guarded: false,
    build: ({ runtime }) => [staticAssets(), brandingAssets(runtime.config.branding)],
  },
  { name: 'home', claims: () => oneOf(['/']), errors: 'visitor', guarded: true, build: () => routes(homeRoutes()) },
  { name: 'external', claims: () => under(EXTERNAL_PREFIX), errors: 'external', guarded: true, build: ({ runtime }) => externalApi(runtime) },
  {
    name: 'requirement',
    claims: () => oneOf([REQUIREMENT_PATH, POLICIES_PATH]),
    errors: 'oauth',
    guarded: true,
    build: ({ runtime }) => [routes(requirementRoutes(runtime)), routes(policiesRoutes(runtime))],
  },
  {
    name: 'checker',
    claims: () => (path, ctx) => path === CHECKER_SCRIPT || CHECKER(path, ctx),
    errors: 'visitor',
    guarded: true,
    build: ({ runtime, provider }) => routes(checkerRoutes(runtime, provider)),
  },
  { name: 'platform', claims: () => under(PLATFORM_PATH), errors: 'visitor', guarded: true, build: ({ runtime }) => routes(platformRouter(runtime)) },
  {
    name: 'interactions',
    claims: ({ runtime }) => {
      const ofChallenge = challengeRoutes(runtime);
      return (path, ctx) => path.startsWith(INTERACTIONS) || ofChallenge(path, ctx);
    },
    errors: 'visitor',
    guarded: true,
    build: async ({ runtime, provider }) => routes(await interactionRouter(runtime, provider)),
  },
  { name: 'oauth2', claims: () => () => true, errors: 'visitor', guarded: true, build: ({ runtime, provider }) => browserOAuth2Surface(runtime, provider) },
];

/** The surface serving a request, as the metrics and the error handlers read it. */
interface ClaimedSurface {
  name: string;
  errors: ErrorShape;
}

declare module 'koa' {
  interface DefaultState {
    /** the surface serving this request (metrics label, error shape) */
    surface?: ClaimedSurface;
  }
}

/** A surface ready to serve: its claim, what it records on the request, and its whole chain. */
interface MountedSurface {
  claims: Claim;
  claimed: ClaimedSurface;
  serve: Middleware;
}

/**
 * Builds every surface and returns the one middleware that hands each request to the surface claiming it, with the
 * request deadline and the input guard in front where the row asks for them. Per request: one lower-cased path, one
 * claim test per surface until one claims it, and that surface's single chain (no router of another surface).
 */
export async function mountSurfaces(deps: SurfaceDeps): Promise<Middleware> {
  const chains = new Map<SurfaceRow, Middleware[]>();
  const guard = [requestDeadline(deps.runtime.config.requestTimeoutMs), inputGuard()];
  // One error middleware per JSON shape, around the whole surface (its guards included); the visitor's page is the
  // outermost handler's (lib/http/envelope.ts), for every surface.
  const errorsOf: Record<ErrorShape, Middleware[]> = { external: [jsonErrors()], oauth: [oauthErrors()], visitor: [] };
  // Built in order, the OAuth2 ones last of all: they compose the provider's middleware, so every provider.use() must be in.
  for (const row of [...SURFACES.filter((row) => !row.name.startsWith('oauth2')), ...SURFACES.filter((row) => row.name.startsWith('oauth2'))]) {
    chains.set(row, [...errorsOf[row.errors], ...(row.guarded ? guard : []), ...[await row.build(deps)].flat()]);
  }
  const mounted: MountedSurface[] = SURFACES.map((row) => ({
    claims: row.claims(deps),
    claimed: Object.freeze({ name: row.name, errors: row.errors }),
    serve: compose(chains.get(row)!),
  }));
  return (ctx, next) => {
    let path = ctx.path.toLowerCase();
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    // The last surface claims every request, so the search always ends on one.
    const surface = mounted.find((candidate) => candidate.claims(path, ctx))!;
    ctx.state.surface = surface.claimed;
    return surface.serve(ctx, next);
  };
}
