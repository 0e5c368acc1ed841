import type { Middleware } from 'koa';
import type { Runtime } from '../runtime.js';
import { ENTRY_FLOWS, LEGACY_PATHS, OAUTH2_PATHS, SCOPE } from './protocol.js';

/** A parameter that is absent or empty takes its default (scope `read`, response_type `code`). */
function withDefault(params: URLSearchParams, name: string, value: string): void {
  if (params.getAll(name).every((sent) => sent === '')) {
    params.delete(name);
    params.set(name, value);
  }
}


/**
 * The entry points (checker, login and their legacy twins) all become the provider's one authorization route with
 * a trusted `flow` that overrides anything sent; defaults are filled in and responses always use the query
 * (no form_post or fragment). Legacy token and resources paths become their /v1/ twins.
 */
export function rewriteEntryPoints(runtime: Runtime): Middleware {
  const limiter = runtime.rateLimits.limiter('oauth2-authorization-ip');
  return async (ctx, next) => {
    const path = ctx.path.toLowerCase();
    const flow = ENTRY_FLOWS[path];
    if (flow && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      await limiter.consume(ctx.ip);
      const params = new URLSearchParams(ctx.querystring);
      params.set('flow', flow);
      withDefault(params, 'scope', SCOPE);
      withDefault(params, 'response_type', 'code');
      params.delete('response_mode');
      ctx.url = `${OAUTH2_PATHS.authorization}?${params.toString()}`;
    } else if (path in LEGACY_PATHS) {
      ctx.path = LEGACY_PATHS[path as keyof typeof LEGACY_PATHS];
    }
    await next();
  };
}
