import { isIPv4, isIPv6 } from 'node:net';

/**
 * A minimal MaxMind DB (format 2.0) writer for tests: an IPv6 tree with 24-bit records, IPv4 networks under ::/96,
 * and the data types GeoIP2 records use. It lets the tests build a City-shaped database with the networks they need,
 * read by the real `maxmind` reader, instead of downloading MaxMind's test databases at test time.
 * Format: https://maxmind.github.io/MaxMind-DB/
 */
export type MmdbValue = string | number | boolean | MmdbValue[] | { [key: string]: MmdbValue };

const METADATA_MARKER = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex'); // \xAB\xCD\xEF + "MaxMind.com"
const RECORD_BITS = 24;

function control(type: number, size: number): Buffer {
  const extended = type > 7;
  const head = extended ? 0 : type << 5;
  let sizeBits: number;
  let sizeBytes: Buffer;
  if (size < 29) [sizeBits, sizeBytes] = [size, Buffer.alloc(0)];
  else if (size < 285) [sizeBits, sizeBytes] = [29, Buffer.from([size - 29])];
  else if (size < 65821) [sizeBits, sizeBytes] = [30, uint(size - 285, 2)];
  else [sizeBits, sizeBytes] = [31, uint(size - 65821, 3)];
  return Buffer.concat([
    Buffer.from([head | sizeBits]),
    extended ? Buffer.from([type - 7]) : Buffer.alloc(0),
    sizeBytes,
  ]);
}

function uint(value: number, bytes: number): Buffer {
  const buffer = Buffer.alloc(bytes);
  buffer.writeUIntBE(value, 0, bytes);
  return buffer;
}

function encode(value: MmdbValue): Buffer {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([control(2, bytes.length), bytes]);
  }
  if (typeof value === 'boolean') return control(14, value ? 1 : 0);
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 0 && value < 2 ** 32) {
      const length = value === 0 ? 0 : Math.ceil(value.toString(16).length / 2);
      return Buffer.concat([control(6, length), length ? uint(value, length) : Buffer.alloc(0)]);
    }
    const double = Buffer.alloc(8);
    double.writeDoubleBE(value);
    return Buffer.concat([control(3, 8), double]);
  }
  if (Array.isArray(value)) return Buffer.concat([control(11, value.length), ...value.map(encode)]);
  const entries = Object.entries(value);
  return Buffer.concat([control(7, entries.length), ...entries.flatMap(([key, item]) => [encode(key), encode(item)])]);
}

/** The 128 bits of an IPv6 address, or of an IPv4 address mapped under ::/96 (as MaxMind's IPv6 databases do). */
function addressBits(address: string): number[] {
  let bytes: number[];
  if (isIPv4(address)) {
    bytes = [...Array<number>(12).fill(0), ...address.split('.').map(Number)];
  } else if (isIPv6(address)) {
    const [head = '', tail = ''] = address.split('::');
    const groups = (part: string) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
    const left = groups(head);
    const right = groups(tail);
    const words = address.includes('::')
      ? [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right]
      : left;
    bytes = words.flatMap((word) => [word >> 8, word & 0xff]);
  } else {
    throw new Error(`not an IP address: ${address}`);
  }
  return bytes.flatMap((byte) => [7, 6, 5, 4, 3, 2, 1, 0].map((shift) => (byte >> shift) & 1));
}

interface TreeNode {
  children: [TreeNode | number | null, TreeNode | number | null];
}

/** Builds a database answering `record` for each `network` (CIDR, e.g. 192.0.2.0/24 or 2001:db8::/32). */
export function buildMmdb(networks: Record<string, MmdbValue>, databaseType = 'GeoIP2-City'): Buffer {
  const root: TreeNode = { children: [null, null] };
  const data: Buffer[] = [];
  let dataSize = 0;
  for (const [network, record] of Object.entries(networks)) {
    const [address = '', prefix = ''] = network.split('/');
    const bits = addressBits(address).slice(0, Number(prefix) + (isIPv4(address) ? 96 : 0));
    const encoded = encode(record);
    const offset = dataSize;
    data.push(encoded);
    dataSize += encoded.length;
    let node = root;
    bits.forEach((bit, depth) => {
      const side = bit as 0 | 1;
      if (depth === bits.length - 1) {
        node.children[side] = offset;
        return;
      }
      const next = node.children[side];
      if (next === null) node.children[side] = node = { children: [null, null] };
      else if (typeof next === 'number') throw new Error(`network ${network} overlaps a shorter one`);
      else node = next;
    });
  }

  const nodes: TreeNode[] = [];
  const ids = new Map<TreeNode, number>();
  for (let queue = [root]; queue.length > 0;) {
    const node = queue.shift()!;
    ids.set(node, nodes.length);
    nodes.push(node);
    for (const child of node.children) if (child !== null && typeof child === 'object') queue.push(child);
  }
  const nodeCount = nodes.length;
  const recordValue = (child: TreeNode | number | null) =>
    child === null ? nodeCount : typeof child === 'number' ? nodeCount + 16 + child : ids.get(child)!;
  const tree = Buffer.concat(
    nodes.map((node) => Buffer.concat(node.children.map((child) => uint(recordValue(child), RECORD_BITS / 8)))),
  );

  const metadata = encode({
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: Math.floor(Date.now() / 1000),
    database_type: databaseType,
    description: { en: 'age-provider test database' },
    ip_version: 6,
    languages: ['en'],
    node_count: nodeCount,
    record_size: RECORD_BITS,
  });
  return Buffer.concat([tree, Buffer.alloc(16), ...data, METADATA_MARKER, metadata]);
}

/** A GeoIP2 City record for `country` and optionally its first-level subdivision (ISO 3166-2 part after the hyphen). */
export function cityRecord(country: string, subdivision?: string): MmdbValue {
  return {
    country: { iso_code: country, names: { en: country } },
    ...(subdivision ? { subdivisions: [{ iso_code: subdivision, names: { en: subdivision } }] } : {}),
  };
}
