import type { Environment } from '../verification/challenge.js';

/** Loopback hosts a developer's page runs on (TEST keys only). */
const isLoopback = (hostname: string): boolean =>
  hostname === 'localhost' ||
  hostname.endsWith('.localhost') ||
  /^127(?:\.\d{1,3}){3}$/.test(hostname) ||
  hostname === '[::1]';

/**
 * Whether a page at `origin` may use a key of the website at `domain` (docs/checker.md "Origins"): LIVE keys only on
 * `https` at the domain or a subdomain of it; TEST keys also on `http` there and on loopback hosts. Anything that is
 * not exactly an origin (a path, credentials, another scheme) is refused.
 */
export function isAllowedOrigin(origin: string, domain: string, environment: Environment): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.origin !== origin) return false;
  const https = url.protocol === 'https:';
  if (!https && !(environment === 'TEST' && url.protocol === 'http:')) return false;
  const host = url.hostname.toLowerCase();
  const site = domain.toLowerCase();
  if (host === site || host.endsWith(`.${site}`)) return true;
  return environment === 'TEST' && isLoopback(host);
}
