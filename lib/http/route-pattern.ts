import type { Context } from 'koa';

/**
 * The route pattern that served a request (@koa/router and oidc-provider's router both set `_matchedRoute`), never the
 * raw path: paths carry interaction ids and other values a log must not collect, and a metric's label values must
 * stay a bounded set. Null when no route matched.
 */
export const routePatternOf = (ctx: Context): string | null => {
  const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
  return route === undefined ? null : String(route);
};
