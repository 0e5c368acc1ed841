import { isIPv4, isIPv6 } from 'node:net';

/**
 * The network a request comes from, as a throttle counts it: an IPv4 address on its own, an IPv6 address by its
 * /64 (one subscriber usually holds a whole /64, so counting single IPv6 addresses would give one attacker 2^64
 * fresh buckets). An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) counts as its IPv4 address.
 */
export function addressGroup(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (isIPv4(ip) || !isIPv6(ip)) return ip;
  return `${expandIPv6(ip).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, lower-case hex without leading zeros (a trailing IPv4 part included). */
function expandIPv6(ip: string): string[] {
  const [address = ''] = ip.split('%'); // a zone index (fe80::1%eth0) names an interface, not a network
  const withoutIPv4 = address.replace(
    /(\d+)\.(\d+)\.(\d+)\.(\d+)$/,
    (_all, a: string, b: string, c: string, d: string) =>
      `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`,
  );
  const [head = '', tail] = withoutIPv4.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array.from({ length: 8 - headGroups.length - tailGroups.length }, () => '0');
  return [...headGroups, ...zeros, ...tailGroups].map((group) => parseInt(group, 16).toString(16));
}
