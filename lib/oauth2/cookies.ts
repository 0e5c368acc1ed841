import type { Configuration } from 'oidc-provider';
import type { Settings } from '../config/types.js';
import type { CookieKeys } from '../security/cookie-keys.js';
import { hostOnlyCookieName, isHttpsIssuer } from '../http/issuer-origin.js';

/**
 * oidc-provider's cookies: Secure exactly when the issuer is https (said explicitly rather than left to its guess
 * from the request). Its session cookie is host-wide (path `/`), so it takes the `__Host-` prefix; the interaction
 * and resume cookies are scoped to their paths, which the prefix forbids, so they keep their names.
 */
export function providerCookies(
  config: Pick<Settings, 'issuer'>,
  keys: CookieKeys,
): NonNullable<Configuration['cookies']> {
  const https = isHttpsIssuer(config.issuer);
  return {
    keys,
    names: { session: hostOnlyCookieName(https, '_session') },
    long: { secure: https },
    short: { secure: https },
  };
}
