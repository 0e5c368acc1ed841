import { readFile, stat } from 'node:fs/promises';
import { FetchError, httpsGet, type OutboundGetOptions } from '../../../security/outbound-get.js';
import { TrustedListError } from './trusted-list.js';

/** National trusted lists weigh up to a few MB; an answer past this is not one. */
const MAX_LIST_BYTES = 16 * 1024 * 1024;

/** How the trusted list and the status lists are fetched, as the operator configured it. */
export type ListFetchOptions = Pick<OutboundGetOptions, 'timeoutMs' | 'allowPrivate' | 'ca'>;

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
