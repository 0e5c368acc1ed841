import { isIP } from 'node:net';

/**
 * Addresses an outbound request the operator did not point at their own network never reaches (a domain to verify, a
 * webhook URL, the EU trusted list): every range of IANA's IPv4 and IPv6 Special-Purpose Address Registries (this
 * host, private and shared space, loopback, link-local and cloud metadata, documentation, benchmarking, protocol
 * assignments, AS112, 6to4 relays, reserved and broadcast), IPv4 multicast, and in IPv6 everything outside global
 * unicast (2000::/3): so IPv4-mapped, IPv4-compatible, SIIT and NAT64 forms, whatever IPv4 address they carry, are
 * refused along with ULA, site-local, link-local and multicast space. An address is read into its numeric value first
 * (any spelling: compressed or not, upper case, leading zeros, an embedded dotted quad, IPv4 in hex or octal parts), so
 * no spelling slips past a textual prefix; what cannot be read as an address is refused.
 */
const IPV4_REFUSED: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // this network (RFC 791)
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // shared address space, carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments (DS-Lite, NAT64 discovery, PCP and TURN anycast)
  ['192.0.2.0', 24], // documentation TEST-NET-1
  ['192.31.196.0', 24], // AS112-v4
  ['192.52.193.0', 24], // AMT
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['192.175.48.0', 24], // direct delegation AS112 service
  ['198.18.0.0', 15], // benchmarking (RFC 2544)
  ['198.51.100.0', 24], // documentation TEST-NET-2
  ['203.0.113.0', 24], // documentation TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the limited broadcast address
];

/** Inside global unicast (2000::/3), the special-purpose blocks; everything outside it is refused whole. */
const IPV6_REFUSED_INSIDE_GLOBAL: ReadonlyArray<readonly [string, number]> = [
  ['2001::', 23], // IETF protocol assignments: Teredo, benchmarking, AMT, AS112, ORCHID, DRIP
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['2620:4f:8000::', 48], // direct delegation AS112 service
  ['3fff::', 20], // documentation (RFC 9637)
];
const GLOBAL_UNICAST: readonly [string, number] = ['2000::', 3];

interface Parsed {
  bits: 32 | 128;
  value: bigint;
}

/** The numeric value of an IPv4 address in any spelling the URL standard reads (127.1, 0x7f.0.0.1, 017700000001). */
function parseIpv4(text: string): Parsed | undefined {
  let hostname: string;
  try {
    hostname = new URL(`http://${text}/`).hostname;
  } catch {
    return undefined;
  }
  if (isIP(hostname) !== 4 || text.includes('/') || text.includes(':')) return undefined;
  const value = hostname.split('.').reduce((sum, part) => (sum << 8n) + BigInt(part), 0n);
  return { bits: 32, value };
}

/** The numeric value of an IPv6 address in any spelling (the URL standard's parser reads embedded dotted quads too). */
function parseIpv6(text: string): Parsed | undefined {
  const bare = text.replace(/^\[(.*)\]$/, '$1');
  let hostname: string;
  try {
    hostname = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const [head = '', tail] = hostname.split('::');
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  if (all.length !== 8) return undefined;
  return { bits: 128, value: all.reduce((sum, group) => (sum << 16n) + BigInt(`0x${group}`), 0n) };
}

const parse = (address: string): Parsed | undefined =>
  address.includes(':') ? parseIpv6(address) : parseIpv4(address);

const networkOf = ([network, prefix]: readonly [string, number]): { value: bigint; prefix: number; bits: 32 | 128 } => {
  const parsed = parse(network)!;
  return { value: parsed.value, prefix, bits: parsed.bits };
};

const contains = (network: { value: bigint; prefix: number; bits: 32 | 128 }, address: Parsed): boolean => {
  const shift = BigInt(network.bits - network.prefix);
  return network.bits === address.bits && address.value >> shift === network.value >> shift;
};

const IPV4_NETWORKS = IPV4_REFUSED.map(networkOf);
const IPV6_NETWORKS = IPV6_REFUSED_INSIDE_GLOBAL.map(networkOf);
const GLOBAL = networkOf(GLOBAL_UNICAST);

/**
 * True for an address an outbound request must not reach unless the operator allowed their own network: any
 * special-purpose or non-global address, in any spelling, and anything that is not an IP address at all.
 */
export function isPrivateAddress(address: string): boolean {
  const parsed = parse(address);
  if (!parsed) return true;
  if (parsed.bits === 32) return IPV4_NETWORKS.some((network) => contains(network, parsed));
  return !contains(GLOBAL, parsed) || IPV6_NETWORKS.some((network) => contains(network, parsed));
}
