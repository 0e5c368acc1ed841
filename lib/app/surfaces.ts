import type { Context, Middleware } from 'koa';
import compose from 'koa-compose';
import { BRAND_PATHS } from '../branding/assets.js';
import { brandingAssets } from '../branding/index.js';
import { checkerSurface } from '../checker/surface.js';
import { CHECKER_PATHS } from '../checker/paths.js';
import { jsonErrors } from '../external/errors.js';
import { externalSurface } from '../external/surface.js';
import { EXTERNAL_PREFIX } from '../external/paths.js';
import { requestDeadline } from '../http/deadline.js';
import { homeRoutes } from '../http/home.js';
import { inputGuard } from '../http/input-guard.js';
import { oauthErrors } from '../http/oauth-errors.js';
import { staticAssets } from '../http/static-assets.js';
import type { ErrorShape } from '../http/surface-errors.js';
import { interactionsSurface } from '../oauth2/interactions/surface.js';
import { BACK_CHANNEL_PATHS, LEGACY_PATHS, OAUTH2_PATHS } from '../oauth2/protocol.js';
import { oauth2BackChannelSurface, oauth2Surface } from '../oauth2/surface.js';
import { PLATFORM_PATH } from '../platform/authentication.js';
import { platformSurface } from '../platform/surface.js';
import { POLICIES_PATH } from '../requirement/policies.js';
import { REQUIREMENT_PATH, requirementSurface } from '../requirement/surface.js';
import type { Runtime, SurfaceBuilder, SurfaceDeps } from './runtime.js';

/** Whether a surface claims a request; `path` is the request's path lower-cased without a trailing slash. */
type Claim = (path: string, ctx: Context) => boolean;

/**
 * One surface of the service: which requests it claims, how it answers errors, whether the request
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
  build: SurfaceBuilder;
  /**
   * its chain composes oidc-provider's middleware, which is fixed when composed: built after every other surface, so
   * every provider.use() made while building them is in
   */
  composesProvider: boolean;
}

const under =
  (prefix: string): Claim =>
  (path) =>
    path === prefix || path.startsWith(`${prefix}/`);
const oneOf = (paths: readonly string[]): Claim => {
  const set = new Set(paths.map((path) => path.toLowerCase()));
  return (path) => set.has(path);
};

/** The health routes, built with the operations listener's (lib/app/app.ts). */
const operationsSurface: SurfaceBuilder = ({ health }) => [health.routes() as Middleware];
const assetsSurface: SurfaceBuilder = ({ runtime }) => [staticAssets(), brandingAssets(runtime.config.branding)];
const homeSurface: SurfaceBuilder = () => [homeRoutes().routes() as Middleware];

const BACK_CHANNEL = oneOf([...BACK_CHANNEL_PATHS, ...Object.keys(LEGACY_PATHS)]);
const INTERACTIONS = OAUTH2_PATHS.interaction('').toLowerCase();
const CHECKER = under('/v1/checker');
const CHECKER_SCRIPT = CHECKER_PATHS.script.toLowerCase();

/** The challenges' own routes, not their routers' path-less `use` layers (those match every path). */
function challengeRoutes(runtime: Runtime): Claim {
  const layers = runtime.challenges.routes.flatMap((router) =>
    router.stack.filter((layer) => layer.methods.length > 0),
  );
  return (_path, ctx) => layers.some((layer) => layer.match(ctx.path));
}

/**
 * Every surface, in the order requests are offered to them; the first that claims a request serves it, and only its
 * middleware runs. The browser side of OAuth2 comes last: it also answers what nobody else claims (its 404 is the
 * visitor's error page). The challenges' own endpoints (a wallet's response, a federated callback) belong to the
 * interactions surface, which claims whatever their routes match.
 */
export const SURFACES: readonly SurfaceRow[] = [
  {
    name: 'oauth2-back-channel',
    claims: () => BACK_CHANNEL,
    errors: 'oauth',
    guarded: true,
    build: oauth2BackChannelSurface,
    composesProvider: true,
  },
  {
    name: 'operations',
    claims: () => oneOf(['/healthz', '/readyz']),
    errors: 'visitor',
    guarded: false,
    build: operationsSurface,
    composesProvider: false,
  },
  {
    name: 'assets',
    claims: () => (path) =>
      path.startsWith('/static/') || path.startsWith(BRAND_PATHS.prefix) || path === BRAND_PATHS.favicon,
    errors: 'visitor',
    guarded: false,
    build: assetsSurface,
    composesProvider: false,
  },
  {
    name: 'home',
    claims: () => oneOf(['/']),
    errors: 'visitor',
    guarded: true,
    build: homeSurface,
    composesProvider: false,
  },
  {
    name: 'external',
    claims: () => under(EXTERNAL_PREFIX),
    errors: 'external',
    guarded: true,
    build: externalSurface,
    composesProvider: false,
  },
  {
    name: 'requirement',
    claims: () => oneOf([REQUIREMENT_PATH, POLICIES_PATH]),
    errors: 'oauth',
    guarded: true,
    build: requirementSurface,
    composesProvider: false,
  },
  {
    name: 'checker',
    claims: () => (path, ctx) => path === CHECKER_SCRIPT || CHECKER(path, ctx),
    errors: 'visitor',
    guarded: true,
    build: checkerSurface,
    composesProvider: false,
  },
  {
    name: 'platform',
    claims: () => under(PLATFORM_PATH),
    errors: 'visitor',
    guarded: true,
    build: platformSurface,
    composesProvider: false,
  },
  {
    name: 'interactions',
    claims: ({ runtime }) => {
      const ofChallenge = challengeRoutes(runtime);
      return (path, ctx) => path.startsWith(INTERACTIONS) || ofChallenge(path, ctx);
    },
    errors: 'visitor',
    guarded: true,
    build: interactionsSurface,
    composesProvider: false,
  },
  {
    name: 'oauth2',
    claims: () => () => true,
    errors: 'visitor',
    guarded: true,
    build: oauth2Surface,
    composesProvider: true,
  },
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
export function mountSurfaces(deps: SurfaceDeps): Middleware {
  const chains = new Map<SurfaceRow, Middleware[]>();
  const guard = [requestDeadline(deps.runtime.config.requestTimeoutMs), inputGuard()];
  // One error middleware per JSON shape, around the whole surface (its guards included); the visitor's page is the
  // outermost handler's (lib/http/envelope.ts), for every surface.
  const errorsOf: Record<ErrorShape, Middleware[]> = { external: [jsonErrors()], oauth: [oauthErrors()], visitor: [] };
  // The surfaces that compose the provider's middleware are built last (SurfaceRow.composesProvider).
  for (const row of [
    ...SURFACES.filter((row) => !row.composesProvider),
    ...SURFACES.filter((row) => row.composesProvider),
  ]) {
    chains.set(row, [...errorsOf[row.errors], ...(row.guarded ? guard : []), ...row.build(deps)]);
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
