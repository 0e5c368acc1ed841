import type { Context, Middleware } from 'koa';
import type { OAuth2Services } from './services.js';
import { ENTRY_FLOWS, LEGACY_PATHS, OAUTH2_PATHS, SCOPE } from './protocol.js';

/** A parameter that is absent or empty takes its default (scope `read`, response_type `code`). */
function withDefault(params: URLSearchParams, name: string, value: string): void {
  if (params.getAll(name).every((sent) => sent === '')) {
    params.delete(name);
    params.set(name, value);
  }
}

/**
 * oidc-provider sends the error of a refused authorization in the fragment when the refused response_type names a
 * token (its default response mode for those): our clients run the code flow and read the query (RFC 6749 4.1.2.1),
 * and nothing we answer uses the fragment, so an error redirect's fragment parameters move to the query, after
 * whatever query the redirect_uri carries.
 */
function errorInQuery(ctx: Context): void {
  const location = ctx.response.get('Location');
  if (ctx.status < 300 || ctx.status >= 400 || !location.includes('#')) return;
  const target = new URL(location);
  const sent = new URLSearchParams(target.hash.slice(1));
  if (!sent.has('error')) return;
  target.hash = '';
  for (const [name, value] of sent) target.searchParams.append(name, value);
  ctx.set('Location', target.href);
}

/**
 * The entry points (checker, login and their legacy twins) all become the provider's one authorization route with
 * a trusted `flow` that overrides anything sent; defaults are filled in and responses always use the query
 * (no form_post or fragment, see `errorInQuery`). Legacy token and resources paths become their /v1/ twins.
 */
export function rewriteEntryPoints(runtime: OAuth2Services): Middleware {
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
      await next();
      errorInQuery(ctx);
      return;
    } else if (path in LEGACY_PATHS) {
      ctx.path = LEGACY_PATHS[path as keyof typeof LEGACY_PATHS];
    }
    await next();
  };
}
