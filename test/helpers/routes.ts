import type Router from '@koa/router';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from 'koa';
import { BRAND_PATHS } from '../../lib/branding/assets.js';
import { checkerSurface } from '../../lib/checker/surface.js';
import { openApiDocument } from '../../lib/external/openapi.js';
import { healthRoutes } from '../../lib/http/health.js';
import { homeRoutes } from '../../lib/http/home.js';
import type { ErrorShape } from '../../lib/http/surface-errors.js';
import { INTERACTION_ROUTES } from '../../lib/oauth2/interactions/paths.js';
import { OAUTH2_ROUTE_METHODS } from '../../lib/oauth2/method-guard.js';
import { OAUTH2_PATHS } from '../../lib/oauth2/protocol.js';
import { viewsDir } from '../../lib/paths.js';
import { platformSurface } from '../../lib/platform/surface.js';
import { requirementSurface } from '../../lib/requirement/surface.js';
import type { SurfaceBuilder, SurfaceDeps } from '../../lib/app/runtime.js';
import { SURFACES } from '../../lib/app/surfaces.js';
import type { AgeProvider } from '../../lib/app/app.js';

/** One route of the service as a stranger reaches it: a concrete path (parameters filled in) and the methods it takes. */
export interface ServiceRoute {
  surface: string;
  errors: ErrorShape;
  /** the route's pattern, as its router or table spells it */
  pattern: string;
  path: string;
  methods: readonly string[];
  /** whether the input guard stands in front of it (lib/app/surfaces.ts) */
  guarded: boolean;
}

/** What a surface row tells about the requests it serves. */
export interface Claimant {
  name: string;
  errors: ErrorShape;
  guarded: boolean;
}

interface Pattern {
  pattern: string;
  methods: readonly string[];
}

/** A router's own routes (its path-less `use` layers match everything and are not routes). */
const routerPatterns = (router: Router): Pattern[] =>
  router.stack.flatMap((layer) =>
    layer.methods.length > 0 && typeof layer.path === 'string' ? [{ pattern: layer.path, methods: layer.methods }] : [],
  );

/** The routes of the routers a surface is built of (a router's middleware names its router). */
const surfacePatterns = (build: SurfaceBuilder, deps: SurfaceDeps): Pattern[] =>
  build(deps).flatMap((middleware) => {
    const { router } = middleware as { router?: Router };
    return router ? routerPatterns(router) : [];
  });

const BOTH = ['GET', 'POST'];

/**
 * Where each surface's routes are read from: its routers (built by the surface's own builder), the tables
 * the routers are registered from, or the OpenAPI document generated from the External API's operations (its paths are absolute). A surface
 * added to lib/app/surfaces.ts without a source here fails `serviceRoutes`, so no surface escapes the suites.
 */
const SOURCES: Record<string, (deps: SurfaceDeps) => Pattern[]> = {
  'oauth2-back-channel': () => [...OAUTH2_ROUTE_METHODS].map(([pattern, methods]) => ({ pattern, methods })),
  operations: ({ runtime }) => routerPatterns(healthRoutes(runtime.db, { draining: false })),
  assets: () => [
    ...readdirSync(join(viewsDir, 'static')).map((name) => ({ pattern: `/static/${name}`, methods: ['GET', 'HEAD'] })),
    { pattern: BRAND_PATHS.theme, methods: ['GET', 'HEAD'] },
  ],
  external: () =>
    Object.entries((openApiDocument() as { paths: Record<string, Record<string, unknown>> }).paths).map(
      ([path, operations]) => ({
        pattern: path,
        methods: Object.keys(operations).map((method) => method.toUpperCase()),
      }),
    ),
  home: () => routerPatterns(homeRoutes()),
  requirement: (deps) => surfacePatterns(requirementSurface, deps),
  checker: (deps) => surfacePatterns(checkerSurface, deps),
  platform: (deps) => surfacePatterns(platformSurface, deps),
  interactions: ({ runtime }) => [
    ...Object.values(INTERACTION_ROUTES).map((route) => ({
      pattern: OAUTH2_PATHS.interaction(':uid') + (route === '/' ? '' : route),
      methods: BOTH,
    })),
    ...runtime.challenges.routes.flatMap(routerPatterns),
  ],
  oauth2: () => [
    ...[...OAUTH2_ROUTE_METHODS].map(([pattern, methods]) => ({ pattern, methods })),
    { pattern: `${OAUTH2_PATHS.authorization}/:uid`, methods: ['GET'] },
  ],
};

/** A plausible value for each path parameter (the suites put bad input elsewhere, or in the path on purpose). */
const fill = (pattern: string): string =>
  pattern
    .replace(/\{website_id\}|:id\b|:websiteId\b/g, '1')
    .replace(/\{environment\}|:environment\b/g, 'live')
    .replace(/:name\b/g, 'email-age')
    .replace(/:step\b/g, 'start')
    .replace(/\{[a-z_]+\}|:[A-Za-z]+/g, 'abc');

/**
 * Every route of every surface, generated from the surfaces table and the surfaces' routers. Each route is listed
 * under the surface that claims it (the first in SURFACES order, as mountSurfaces hands requests out); a surface
 * without a source, or whose source yields no route it claims, throws.
 */
export function serviceRoutes(app: AgeProvider): { routes: ServiceRoute[]; claimant: (path: string) => Claimant } {
  const deps: SurfaceDeps = {
    runtime: app.runtime,
    provider: app.provider,
    health: healthRoutes(app.db, { draining: false }),
  };
  const claims = SURFACES.map((row) => ({ row, claims: row.claims(deps) }));
  /** the surface serving a path, found as mountSurfaces finds it */
  const claimant = (path: string) => {
    const lower = (path.split('?')[0] ?? '').toLowerCase().replace(/(.)\/$/, '$1');
    return claims.find((candidate) => candidate.claims(lower, { path } as Context))!.row;
  };
  const routes = new Map<string, ServiceRoute>();
  for (const row of SURFACES) {
    const source = SOURCES[row.name];
    if (!source) throw new Error(`no route source for the surface ${row.name} (test/helpers/routes.ts)`);
    let own = 0;
    for (const { pattern, methods } of source(deps)) {
      const path = fill(pattern);
      if (claimant(path) !== row) continue; // listed by another surface's source too (the OAuth2 method table spans two)
      own += 1;
      const key = `${row.name} ${path}`;
      const known = routes.get(key);
      routes.set(key, {
        surface: row.name,
        errors: row.errors,
        pattern,
        path,
        guarded: row.guarded,
        methods: [...new Set([...(known?.methods ?? []), ...methods])],
      });
    }
    if (own === 0) throw new Error(`the route source of ${row.name} yields no route that surface claims`);
  }
  return { routes: [...routes.values()], claimant: (path) => claimant(path) };
}
