import { X509Certificate } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { get } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress } from './private-addresses.js';

/** A host name's addresses, as the system resolver gives them (tests inject their own: no real DNS). */
export type Resolve = (host: string) => Promise<Array<{ address: string; family: number }>>;

export const systemResolve: Resolve = (host) => lookup(host, { all: true, verbatim: true });

/**
 * The socket's own look-up: resolves once, refuses the connection when any answer is a private address (unless
 * allowed), and hands the connection exactly the addresses it checked. A separate look-up before the request would
 * leave a second one to the connection, and a DNS answer that changes in between (rebinding) could point it at our
 * own network.
 */
export function checkedLookup(allowPrivate: boolean, resolve: Resolve = systemResolve): LookupFunction {
  const checked = async (hostname: string): Promise<Awaited<ReturnType<Resolve>>> => {
    const addresses = await resolve(hostname);
    if (addresses.length === 0 || (!allowPrivate && addresses.some(({ address }) => isPrivateAddress(address))))
      throw Object.assign(new Error('refused address'), { code: 'EPRIVATE' });
    return addresses;
  };
  return (hostname, options, callback) => {
    const answer = (error: NodeJS.ErrnoException | null, addresses: Awaited<ReturnType<Resolve>>): void => {
      if (error) callback(error, '', 0);
      else if (options.all) (callback as unknown as (error: null, all: typeof addresses) => void)(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    };
    // Answered outside the promise: an exception in the socket's callback must not turn into a rejection here.
    checked(hostname).then(
      (addresses) => process.nextTick(answer, null, addresses),
      (error: NodeJS.ErrnoException) => process.nextTick(answer, error, []),
    );
  };
}

/** Codes of a connection that failed in TLS: the certificate, its chain, or the handshake. */
const isTlsFailure = (code: string): boolean =>
  code.startsWith('ERR_TLS_') ||
  code.startsWith('ERR_SSL_') ||
  /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code) ||
  code === 'EPROTO';

/**
 * Why an outbound connection failed, in words a webmaster or operator can act on: refused, reset, timed out,
 * unreachable, TLS failed (with its code), a refused address. Never the driver's message, which names the address
 * connected to, possibly one inside the operator's network.
 */
export function connectionFailure(error: NodeJS.ErrnoException): string {
  const code = error.code ?? '';
  if (code === 'EPRIVATE') return 'the host resolves to an address that is not allowed';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name does not resolve';
  if (code === 'ECONNREFUSED') return 'the connection was refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'the connection was reset';
  if (code === 'ETIMEDOUT' || error.name === 'TimeoutError' || error.name === 'AbortError') return 'it timed out';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'the address is unreachable';
  if (isTlsFailure(code)) return `TLS failed (${code})`;
  return `the connection failed${/^[A-Z0-9_]+$/.test(code) ? ` (${code})` : ''}`;
}

/** What an outbound GET could not do, in words for the log (never the address, which may carry a token). */
export class FetchError extends Error {}

export interface OutboundGetOptions {
  timeoutMs: number;
  /** the operator pointed the URL at their own network (a mirror): private addresses are allowed */
  allowPrivate: boolean;
  /** certificates (DER) the server's TLS certificate must chain to, instead of the system's: a mirror under a private CA */
  ca?: readonly Buffer[];
  accept: string;
  /** an answer past this is not the document asked for */
  maxBytes: number;
  resolve?: Resolve;
}

/**
 * GET over https to a public address (unless `allowPrivate`) connected to as checked (checkedLookup), redirects not
 * followed, within `timeoutMs` and `maxBytes`: the eu_av trusted list and status lists, a website's domain file.
 * Throws FetchError.
 */
export function httpsGet(url: string, options: OutboundGetOptions): Promise<Buffer> {
  // An address written in the URL is connected to without a look-up: it is checked here.
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && isIP(host) && isPrivateAddress(host))
    return Promise.reject(new FetchError('could not be fetched (EPRIVATE)'));
  return new Promise((resolve, reject) => {
    const request = get(
      url,
      {
        headers: { accept: options.accept },
        signal: AbortSignal.timeout(options.timeoutMs),
        lookup: checkedLookup(options.allowPrivate, options.resolve),
        ...(options.ca ? { ca: options.ca.map((der) => new X509Certificate(der).toString()) } : {}),
      },
      (response) => {
        // Redirects are not followed: the operator (or the attestation) names the address.
        if (response.statusCode !== 200) {
          response.resume();
          return reject(new FetchError(`its address answered ${response.statusCode}`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes)
            return request.destroy(new FetchError(`it is larger than ${options.maxBytes} bytes`));
          chunks.push(chunk);
        });
        response.on('end', () => resolve(Buffer.concat(chunks)));
        response.on('error', reject);
      },
    );
    request.on('error', (error: Error & { code?: string }) =>
      reject(
        error instanceof FetchError
          ? error
          : new FetchError(
              error.name === 'TimeoutError' || error.name === 'AbortError'
                ? 'its address did not answer in time'
                : `could not be fetched (${error.code ?? 'no code'})`,
            ),
      ),
    );
  });
}
