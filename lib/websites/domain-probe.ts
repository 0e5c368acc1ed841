import { lookup, Resolver } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

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

/** Addresses the default probe never fetches from: a webmaster types the domain, and it must not reach our own network. */
const PRIVATE = new BlockList();
for (const [network, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16], ['224.0.0.0', 3]] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [['::', 127], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['::ffff:0:0', 96]] as const) PRIVATE.addSubnet(network, prefix, 'ipv6');

async function publicHost(host: string): Promise<boolean> {
  const addresses = await lookup(host, { all: true, verbatim: true }).catch(() => []);
  return addresses.length > 0 && addresses.every(({ address }) => !PRIVATE.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4'));
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
        const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'text/plain' } });
        return response.status === 200 ? await boundedText(response, MAX_FILE_BYTES) : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
