import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type Provider from 'oidc-provider';

/**
 * What a surface is built from, once, at start-up (lib/app/surfaces.ts): the services it takes, named by the surface in
 * its own terms (`S`), oidc-provider, and the health routes.
 */
export interface SurfaceDeps<S> {
  runtime: S;
  provider: Provider;
  health: Router;
}

/** How every surface is built: `<name>Surface(deps)` returns its middleware, in order (lib/app/surfaces.ts composes it). */
export type SurfaceBuilder<S> = (deps: SurfaceDeps<S>) => Middleware[];
