import { lookup, Resolver } from 'node:dns/promises';
import { isPrivateAddress } from '../security/private-addresses.js';

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

/** The default probe never fetches from a private address: a webmaster types the domain, and it must not reach our own network. */
async function publicHost(host: string): Promise<boolean> {
  const addresses = await lookup(host, { all: true, verbatim: true }).catch(() => []);
  return addresses.length > 0 && addresses.every(({ address }) => !isPrivateAddress(address));
}

/** Reads at most `limit` bytes of a response body; more is refused (undefined). */
async function boundedText(response: Response, limit: number): Promise<string | undefined> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The public DNS and the public web, each call bounded by `timeoutMs`; redirects are not followed. */
export function publicDomainProbe(timeoutMs: number): DomainProbe {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  return {
    async txtRecords(name) {
      try {
        return (await resolver.resolveTxt(name)).map((parts) => parts.join(''));
      } catch {
        return [];
      }
    },
    async fetchText(url) {
      if (!(await publicHost(new URL(url).hostname))) return undefined;
      try {
        const response = await fetch(url, {
          redirect: 'error',
          signal: AbortSignal.timeout(timeoutMs),
          headers: { accept: 'text/plain' },
        });
        return response.status === 200 ? await boundedText(response, MAX_FILE_BYTES) : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
