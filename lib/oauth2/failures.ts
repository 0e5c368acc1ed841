import type { Context, Middleware } from 'koa';
import type Provider from 'oidc-provider';
import { noteFailure } from '../http/failure-log.js';
import { isDatabaseUnavailable } from '../store/unavailable.js';

declare module 'koa' {
  interface DefaultState {
    /** the database failure oidc-provider turned into its own `server_error` answer on this request */
    databaseOutage?: unknown;
  }
}

/**
 * oidc-provider catches failures inside its routes and answers `server_error` itself, without logging: note each one
 * for the request's log line (lib/http/failure-log.ts) and remember a database outage so `oauth2Outages` can answer 503.
 */
export function watchProviderFailures(provider: Provider): void {
  provider.on('server_error', (ctx: Context, error: unknown) => {
    noteFailure(ctx, error);
    if (isDatabaseUnavailable(error)) ctx.state.databaseOutage = error;
  });
}

/**
 * Wraps the OAuth2 surface: a database outage the provider answered as its own 500 is rethrown, so the fallback
 * answers it in the route's shape (503 `temporarily_unavailable` JSON on the back channel, the visitor's outage page
 * on the browser routes), with Retry-After.
 */
export function oauth2Outages(): Middleware {
  return async (ctx, next) => {
    await next();
    const outage = ctx.state.databaseOutage;
    if (outage !== undefined && ctx.status === 500) throw outage;
  };
}
