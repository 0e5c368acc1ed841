import type Koa from 'koa';
import type { Logger } from '../log.js';

/** True when the public address (ISSUER) is https: cookies are then Secure and host-only ones `__Host-` prefixed. */
export const isHttpsIssuer = (issuer: string): boolean => new URL(issuer).protocol === 'https:';

/**
 * Every absolute URL koa and oidc-provider derive from the request (ctx.origin, ctx.href, oidc-provider's urlFor:
 * the resume redirect, the error page's "return to the website" link) uses ISSUER's scheme and host, never the
 * `Host` or `X-Forwarded-Host` header a client chose. The scheme also decides ctx.secure, so cookies are Secure
 * whenever the issuer is https, with or without TRUST_PROXY. Pinned once on the app's request prototype (koa makes
 * each request's `ctx.request` from it), so no request can see another value and none pays for setting it.
 */
export function pinOriginToIssuer(app: Koa, issuer: string): void {
  const { protocol, host, hostname } = new URL(issuer);
  Object.defineProperties(app.request, {
    protocol: { value: protocol.slice(0, -1) },
    host: { value: host },
    hostname: { value: hostname },
  });
}

/**
 * An https issuer served without TRUST_PROXY is usually a TLS proxy we do not trust: client addresses (rate limits,
 * geo lookup) are then the proxy's. Cookies stay Secure either way; say so once at start-up.
 */
export function warnAboutUntrustedProxy(issuer: string, trustProxy: boolean, log: Logger): void {
  if (!isHttpsIssuer(issuer) || trustProxy) return;
  log.warn(
    'ISSUER is https but TRUST_PROXY is off: every client appears with the address of the TLS proxy in front; set TRUST_PROXY=true if one terminates TLS for this server',
    { issuer },
  );
}

/**
 * The name of a cookie scoped to the whole host (path `/`, no Domain): `__Host-<name>` over https, so a sibling
 * subdomain or a plain-http response cannot plant or overwrite it (RFC 6265bis §4.1.3.2).
 */
export const hostOnlyCookieName = (https: boolean, name: string): string => (https ? `__Host-${name}` : name);
