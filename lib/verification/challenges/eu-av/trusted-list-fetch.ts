import { X509Certificate } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { readFile, stat } from 'node:fs/promises';
import { get } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress } from '../../../security/private-addresses.js';
import { TrustedListError } from './trusted-list.js';

/** National trusted lists weigh up to a few MB; an answer past this is not one. */
const MAX_LIST_BYTES = 16 * 1024 * 1024;

export interface ListFetchOptions {
  timeoutMs: number;
  /** the operator pointed the list at their own network (a mirror): private addresses are allowed */
  allowPrivate: boolean;
  /** certificates (DER) the list server's TLS certificate must chain to, instead of the system's: a mirror under a private CA */
  ca?: readonly Buffer[];
}

/**
 * Resolves as the connection does, and refuses a private address there (not in a separate look-up that a DNS answer
 * could change between the check and the connection).
 */
const publicOnly: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    if (addresses.length === 0 || addresses.some(({ address }) => isPrivateAddress(address))) {
      return callback(
        Object.assign(new Error(`${hostname} resolves to a private address`), { code: 'EPRIVATE' }),
        '',
        0,
      );
    }
    if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

/** What an outbound GET could not do, in words for the log (never the address, which may carry a token). */
export class FetchError extends Error {}

interface GetOptions extends ListFetchOptions {
  accept: string;
  /** an answer past this is not the document asked for */
  maxBytes: number;
}

/**
 * GET over https to a public address (unless `allowPrivate`), redirects not followed, within `timeoutMs` and
 * `maxBytes`: the trusted list and the attestations' status lists. Throws FetchError.
 */
export function httpsGet(url: string, options: GetOptions): Promise<Buffer> {
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
        ...(options.allowPrivate ? {} : { lookup: publicOnly }),
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
                : `could not be fetched (${error.code ?? error.message})`,
            ),
      ),
    );
  });
}

async function fetchHttps(url: string, options: ListFetchOptions): Promise<string> {
  try {
    return (
      await httpsGet(url, { ...options, accept: 'application/xml, text/xml', maxBytes: MAX_LIST_BYTES })
    ).toString('utf8');
  } catch (error) {
    if (!(error instanceof FetchError)) throw error;
    if (error.message.startsWith('it is larger')) throw new TrustedListError('the trusted list is larger than 16 MiB');
    throw new TrustedListError(
      error.message.startsWith('its ')
        ? `the trusted list's ${error.message.slice(4)}`
        : `the trusted list ${error.message}`,
    );
  }
}

/** The list's text: from an https URL (never over plain http), or from a file. */
export async function fetchListText(location: string, options: ListFetchOptions): Promise<string> {
  if (location.startsWith('https://')) return fetchHttps(location, options);
  try {
    if ((await stat(location)).size > MAX_LIST_BYTES)
      throw new TrustedListError('the trusted list is larger than 16 MiB');
    return await readFile(location, 'utf8');
  } catch (error) {
    throw error instanceof TrustedListError ? error : new TrustedListError('the trusted list file cannot be read');
  }
}
