/**
 * The X.509 extensions a document-signer path is judged on, read from the certificate's DER by this small reader
 * (node:crypto does not expose key usage bits, path length or criticality). Written apart from the libraries that
 * make certificates (the tests build theirs with @peculiar/x509), so one library's reading cannot vouch for itself.
 */

/** One DER element: its tag, where its content starts and where the element ends. */
interface Element {
  tag: number;
  start: number;
  end: number;
}

class MalformedCertificate extends Error {}

function element(der: Uint8Array, offset: number, limit: number): Element {
  if (offset + 2 > limit) throw new MalformedCertificate('truncated DER');
  const tag = der[offset]!;
  if ((tag & 0x1f) === 0x1f) throw new MalformedCertificate('multi-byte DER tag');
  let length = der[offset + 1]!;
  let start = offset + 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets === 0 || octets > 4 || start + octets > limit) throw new MalformedCertificate('bad DER length');
    length = 0;
    for (let index = 0; index < octets; index += 1) length = length * 256 + der[start + index]!;
    start += octets;
  }
  const end = start + length;
  if (end > limit) throw new MalformedCertificate('DER element overruns its container');
  return { tag, start, end };
}

/** The elements inside a constructed element, in order. */
function children(der: Uint8Array, parent: Element): Element[] {
  const found: Element[] = [];
  for (let offset = parent.start; offset < parent.end;) {
    const child = element(der, offset, parent.end);
    found.push(child);
    offset = child.end;
  }
  return found;
}

const SEQUENCE = 0x30;
const BOOLEAN = 0x01;
const INTEGER = 0x02;
const BIT_STRING = 0x03;
const OCTET_STRING = 0x04;
const OID = 0x06;
const EXTENSIONS = 0xa3;

function expectTag(found: Element | undefined, tag: number): Element {
  if (found?.tag !== tag) throw new MalformedCertificate(`expected DER tag ${tag}`);
  return found;
}

function oidText(der: Uint8Array, oid: Element): string {
  const arcs: number[] = [];
  let value = 0;
  for (let index = oid.start; index < oid.end; index += 1) {
    value = value * 128 + (der[index]! & 0x7f);
    if (!(der[index]! & 0x80)) {
      arcs.push(value);
      value = 0;
    }
  }
  const [first = 0, ...rest] = arcs;
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  return [...head, ...rest].join('.');
}

export const OIDS = {
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  /** ISO/IEC 18013-5: the mdoc document signer's extended key usage */
  mdocDocumentSigner: '1.0.18013.5.1.2',
  /**
   * The EUDI PID rulebook's document signer (the EU age-verification and PID reference issuers' DS certificates carry
   * it, critical, under IACA roots marked 1.3.130.2.0.0.1.7)
   */
  eudiDocumentSigner: '1.3.130.2.0.0.1.2',
} as const;

/** The extended key usages that make an end-entity certificate a document signer: either one, and nothing else. */
export const DOCUMENT_SIGNER_USAGES: readonly string[] = [OIDS.mdocDocumentSigner, OIDS.eudiDocumentSigner];

export interface CertificateExtensions {
  /** basicConstraints cA (false when the extension is absent) */
  ca: boolean;
  /** basicConstraints pathLenConstraint, when given */
  pathLength?: number;
  /** the key usage bits by name, or undefined when the extension is absent */
  keyUsage?: { digitalSignature: boolean; keyCertSign: boolean };
  /** extended key usage OIDs, or undefined when the extension is absent */
  extendedKeyUsage?: string[];
  /** OIDs of every extension marked critical */
  critical: string[];
}

/** Key usage bits as numbered in RFC 5280 (bit 0 is the most significant bit of the first octet). */
const hasBit = (der: Uint8Array, bits: Element, bit: number): boolean => {
  const octet = bits.start + 1 + Math.floor(bit / 8);
  return octet < bits.end && (der[octet]! & (0x80 >> (bit % 8))) !== 0;
};

/** Reads the extensions of a DER certificate; throws on malformed DER or an extension that appears twice. */
export function readExtensions(der: Uint8Array): CertificateExtensions {
  const certificate = expectTag(element(der, 0, der.length), SEQUENCE);
  const tbs = expectTag(children(der, certificate)[0], SEQUENCE);
  const extensionsField = children(der, tbs).find((field) => field.tag === EXTENSIONS);
  const result: CertificateExtensions = { ca: false, critical: [] };
  if (!extensionsField) return result;
  const seen = new Set<string>();
  for (const extension of children(der, expectTag(children(der, extensionsField)[0], SEQUENCE))) {
    const [id, second, third] = children(der, expectTag(extension, SEQUENCE));
    const name = oidText(der, expectTag(id, OID));
    if (seen.has(name)) throw new MalformedCertificate(`extension ${name} appears twice`);
    seen.add(name);
    const critical = second?.tag === BOOLEAN && der[second.start] !== 0;
    if (critical) result.critical.push(name);
    const value = expectTag(second?.tag === BOOLEAN ? third : second, OCTET_STRING);
    const inner = element(der, value.start, value.end);
    if (name === OIDS.basicConstraints) {
      const [flag, length] = children(der, expectTag(inner, SEQUENCE));
      result.ca = flag?.tag === BOOLEAN && der[flag.start] !== 0;
      const pathLength = flag?.tag === INTEGER ? flag : length;
      if (pathLength?.tag === INTEGER && pathLength.end - pathLength.start === 1)
        result.pathLength = der[pathLength.start]!;
    } else if (name === OIDS.keyUsage) {
      const bits = expectTag(inner, BIT_STRING);
      result.keyUsage = { digitalSignature: hasBit(der, bits, 0), keyCertSign: hasBit(der, bits, 5) };
    } else if (name === OIDS.extKeyUsage) {
      result.extendedKeyUsage = children(der, expectTag(inner, SEQUENCE)).map((usage) =>
        oidText(der, expectTag(usage, OID)),
      );
    }
  }
  return result;
}
