import type { Middleware } from 'koa';
import { describeError, HttpError, oauthJsonError } from './errors.js';
import { noteFailure } from './failure-log.js';

/** The RFC 6749 §5.2 `error` for a status when the thrower named none. */
const codeFor = (status: number): string =>
  status === 429 ? 'too_many_requests' : status >= 500 ? 'server_error' : 'invalid_request';

/**
 * The OAuth2 JSON error shape (RFC 6749 §5.2, RFC 6750 §3.1), for every surface that answers machines in it: the
 * back channel, the requirement endpoint, a wallet's response endpoint. Handlers throw (an HttpError carries its
 * `code` and headers, e.g. WWW-Authenticate or Retry-After); nothing is written by hand. Never cached; a 5xx is
 * noted for the envelope's log line.
 */
export function oauthErrors(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const { status, message, headers, code } = describeError(error);
      if (status >= 500) noteFailure(ctx, error);
      const named = error instanceof HttpError ? error.code : code;
      oauthJsonError(ctx, status, named ?? codeFor(status), message, { ...headers, 'Cache-Control': 'no-store' });
    }
  };
}
