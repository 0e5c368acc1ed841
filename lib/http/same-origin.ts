import type { Middleware } from 'koa';
import { HttpError } from './errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Defence in depth beside the CSRF token: a state-changing request from a browser must come from a page of the
 * issuer's own origin. An `Origin` header naming an origin decides; else `Sec-Fetch-Site` must say `same-origin`.
 * `Origin: null` is what browsers send for our own forms under our `Referrer-Policy: no-referrer`, so it defers to
 * `Sec-Fetch-Site` like a missing Origin. A request with neither (an old browser, a script) is left to the CSRF
 * token. The surface's error handler answers the 403 in its own shape.
 */
export function sameOrigin(issuer: string): Middleware {
  const expected = new URL(issuer).origin;
  return async (ctx, next) => {
    if (!SAFE_METHODS.has(ctx.method) && !fromIssuer(expected, ctx.get('Origin'), ctx.get('Sec-Fetch-Site'))) {
      throw new HttpError(403, 'This form was sent from another site.');
    }
    await next();
  };
}

function fromIssuer(expected: string, origin: string, fetchSite: string): boolean {
  if (origin && origin !== 'null') return origin === expected;
  if (fetchSite) return fetchSite === 'same-origin';
  return true;
}
