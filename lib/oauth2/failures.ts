import type { Context, Middleware } from 'koa';
import type Provider from 'oidc-provider';
import { describeError, oauthJsonError } from '../http/errors.js';
import { OUTAGE } from '../http/outage.js';
import type { Logger } from '../log.js';
import { isDatabaseUnavailable } from '../store/unavailable.js';

/** The database failure oidc-provider turned into its own `server_error` answer on this request. */
const outages = new WeakMap<Context, unknown>();

/**
 * oidc-provider catches failures inside its routes and answers `server_error` itself, without logging: log each one
 * (the request id comes with the logger) and remember a database outage so `oauth2Failures` can answer 503.
 */
export function watchProviderFailures(provider: Provider, log: Logger): void {
  provider.on('server_error', (ctx: Context, error: unknown) => {
    log.error('oauth2 server error', { path: ctx.path, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    if (isDatabaseUnavailable(error)) outages.set(ctx, error);
  });
}

/**
 * Wraps the OAuth2 surface. A back-channel call (token, Resources, introspection, revocation) always gets RFC 6749
 * JSON, even for a failure thrown past the provider's own handler; a database outage is 503 with Retry-After
 * (`temporarily_unavailable`) on every route, the visitor's page for the browser routes.
 */
export function oauth2Failures(log: Logger, isBackChannel: (ctx: Context) => boolean): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (!isBackChannel(ctx)) throw error;
      const { status, message, headers, code } = describeError(error);
      if (status >= 500) log.error('oauth2 back channel failure', { path: ctx.path, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      oauthJsonError(ctx, status, code ?? (status >= 500 ? 'server_error' : 'invalid_request'), message, headers);
      return;
    }
    const outage = outages.get(ctx);
    if (outage === undefined || ctx.status !== 500) return;
    // The provider already rendered its page: the visitor's outage page (with a retry link) replaces it.
    if (ctx.response.is('html')) throw outage;
    oauthJsonError(ctx, OUTAGE.status, OUTAGE.code, OUTAGE.message, OUTAGE.headers);
  };
}
