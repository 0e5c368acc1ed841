import type { Middleware } from 'koa';
import { oauthJsonError } from '../http/errors.js';
import { ENTRY_FLOWS, LEGACY_PATHS, OAUTH2_PATHS } from './protocol.js';

const READ = ['GET', 'HEAD'];
/** The public documents a browser may read from another origin: oidc-provider answers their CORS preflight. */
const PUBLIC_DOCUMENT = [...READ, 'OPTIONS'];
/**
 * Back-channel endpoints take POST only. No OPTIONS: every client has a secret that must never reach a browser, so
 * no cross-origin page has a reason to call them and no preflight is answered.
 */
const BACK_CHANNEL = ['POST'];

const METHODS: Record<string, readonly string[]> = {
  [OAUTH2_PATHS.token]: BACK_CHANNEL,
  [OAUTH2_PATHS.introspection]: BACK_CHANNEL,
  [OAUTH2_PATHS.revocation]: BACK_CHANNEL,
  [OAUTH2_PATHS.resources]: READ,
  [OAUTH2_PATHS.jwks]: PUBLIC_DOCUMENT,
  [OAUTH2_PATHS.metadata]: PUBLIC_DOCUMENT,
  // The entry points are links the visitor's browser follows: GET only.
  ...Object.fromEntries(Object.keys(ENTRY_FLOWS).map((path) => [path, READ])),
};
for (const [legacy, current] of Object.entries(LEGACY_PATHS)) METHODS[legacy] = METHODS[current]!;

/**
 * Lower-case path → allowed methods: the routers behind match paths case-insensitively, so the guard does too. Also
 * the list of the provider's routes the tests offer bad input to.
 */
export const OAUTH2_ROUTE_METHODS: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries(METHODS).map(([path, methods]) => [path.toLowerCase(), methods]),
);

/**
 * Runs before every other OAuth2 middleware. A trailing slash is dropped on every OAuth2 path (one spelling reaches
 * one handler), and a method the endpoint does not take is answered as the OAuth2 surface answers errors: JSON, 405,
 * with `Allow` (RFC 9110 §15.5.6) instead of falling through to the visitor's HTML 404.
 */
export function guardOAuth2Methods(): Middleware {
  return async (ctx, next) => {
    const path = ctx.path.length > 1 ? ctx.path.replace(/\/+$/, '') : ctx.path;
    const allowed = OAUTH2_ROUTE_METHODS.get(path.toLowerCase());
    if (!allowed) return next();
    if (path !== ctx.path) ctx.path = path;
    if (!allowed.includes(ctx.method)) {
      const use = allowed.filter((method) => method !== 'HEAD' && method !== 'OPTIONS').join(' or ');
      return oauthJsonError(ctx, 405, 'invalid_request', `${ctx.method} is not allowed on ${path}: use ${use}`, {
        Allow: allowed.join(', '),
        'Cache-Control': 'no-store',
      });
    }
    await next();
  };
}
