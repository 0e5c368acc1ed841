import type { Context } from 'koa';

/** Which error shape a surface's callers expect: the External API's JSON, RFC 6749 JSON, or the visitor's HTML page. */
export type ErrorShape = 'external' | 'oauth' | 'visitor';

/** The shape of the surface that claimed the request (lib/app/surfaces.ts); before any did, the visitor's page. */
export function errorShapeOf(ctx: Context): ErrorShape {
  return ctx.state.surface?.errors ?? 'visitor';
}
