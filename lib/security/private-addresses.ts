import { BlockList, isIP } from 'node:net';

/**
 * Addresses an outbound request the operator did not point at their own network never reaches: loopback, private,
 * shared, link-local and multicast ranges, IPv4 and IPv6 (an IPv4-mapped IPv6 address included).
 */
const PRIVATE = new BlockList();
for (const [network, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16], ['224.0.0.0', 3]] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [['::', 127], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['::ffff:0:0', 96]] as const) PRIVATE.addSubnet(network, prefix, 'ipv6');

export const isPrivateAddress = (address: string): boolean => PRIVATE.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
