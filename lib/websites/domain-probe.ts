import { Resolver } from 'node:dns/promises';
import { FetchError, httpsGet, type Resolve } from '../security/outbound-get.js';

/**
 * How a website's domain is looked at from outside: its TXT records and its /.well-known file. Injected (an option of
 * createAgeProvider) so tests serve both from loopback; the default asks the public DNS and the website itself.
 */
export interface DomainProbe {
  /** every TXT record of `name`, each record's strings joined; none (or no such name) is an empty list */
  txtRecords(name: string): Promise<string[]>;
  /** the text of `url` when it answers 200 (at most a few KiB), else undefined */
  fetchText(url: string): Promise<string | undefined>;
}

/** More than a token file ever holds: a bigger answer is not one. */
const MAX_FILE_BYTES = 4096;

/**
 * The public DNS and the public web, each call bounded by `timeoutMs`; redirects are not followed. `resolve` answers
 * the file's host name (the system's resolver unless a test injects one).
 */
export function publicDomainProbe(timeoutMs: number, resolve?: Resolve): DomainProbe {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  return {
    async txtRecords(name) {
      try {
        return (await resolver.resolveTxt(name)).map((parts) => parts.join(''));
      } catch {
        return [];
      }
    },
    // A webmaster types the domain: it must not reach our own network, also through a DNS answer that changes.
    async fetchText(url) {
      try {
        const body = await httpsGet(url, {
          timeoutMs,
          allowPrivate: false,
          accept: 'text/plain',
          maxBytes: MAX_FILE_BYTES,
          resolve,
        });
        return body.toString('utf8');
      } catch (error) {
        if (error instanceof FetchError) return undefined;
        throw error;
      }
    },
  };
}
