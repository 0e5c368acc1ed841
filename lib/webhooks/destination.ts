import { isIP } from 'node:net';
import { systemResolve, type Resolve } from '../security/outbound-get.js';
import { isPrivateAddress } from '../security/private-addresses.js';

/** Where one delivery connects: the URL, and the address its host resolved to and passed the check. */
export interface Destination {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** What the delivery log says of a host that does not resolve, or resolves to an address that is not public. */
export const UNREACHABLE_HOST = "The URL's host cannot be reached from this service, or is not a public address.";

/** A URL or address a webhook may not reach; the message says why (shown in the delivery log). */
export class RefusedDestination extends Error {
  override name = 'RefusedDestination';
}

const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * What is wrong with `value` as a webhook URL, or undefined: https (http too when the operator allows private
 * addresses), no user name or password, no fragment; a host that is itself a private address or `localhost` only
 * when allowed. Host names are judged again by the addresses they resolve to, at every delivery.
 */
export function webhookUrlProblem(value: string, allowPrivate: boolean): string | undefined {
  if (!URL.canParse(value)) return 'The url must be an absolute URL.';
  const url = new URL(value);
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return 'The url must use https.';
  if (url.username || url.password || url.hash)
    return 'The url must not contain a user name, a password or a fragment.';
  const host = hostOf(url);
  const literalPrivate =
    (isIP(host) !== 0 && isPrivateAddress(host)) || host === 'localhost' || host.endsWith('.localhost');
  if (literalPrivate && !allowPrivate) return 'The url must not point to a private, loopback or link-local address.';
  return undefined;
}

/**
 * Checks the URL and resolves its host now: every address it resolves to must be public (unless allowed), and the
 * delivery connects to the one checked here, so a DNS answer that changes in between cannot redirect it.
 */
export async function resolveDestination(
  value: string,
  allowPrivate: boolean,
  resolve: Resolve = systemResolve,
): Promise<Destination> {
  const problem = webhookUrlProblem(value, allowPrivate);
  if (problem) throw new RefusedDestination(problem);
  const url = new URL(value);
  const host = hostOf(url);
  const addresses = isIP(host) !== 0 ? [{ address: host, family: isIP(host) }] : await resolve(host).catch(() => []);
  // One sentence for both: telling "does not resolve" from "resolves to a private address" would let a webmaster map
  // which names exist inside the operator's network.
  if (addresses.length === 0 || (!allowPrivate && addresses.some(({ address }) => isPrivateAddress(address))))
    throw new RefusedDestination(UNREACHABLE_HOST);
  const [first] = addresses;
  return { url, address: first!.address, family: first!.family === 6 ? 6 : 4 };
}
