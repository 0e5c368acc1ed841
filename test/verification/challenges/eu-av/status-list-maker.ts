import { webcrypto } from 'node:crypto';
import { Encoder } from 'cbor-x';
import type { Issued } from './hand-made.js';

/**
 * An IETF Token Status List token (draft-ietf-oauth-status-list, CWT form) written field by field, apart from the
 * verifier's code: the statuses packed here, compressed with the web platform's CompressionStream (zlib format), the
 * COSE_Sign1 signed with WebCrypto (the verifier uses node:zlib and node:crypto).
 */

const cbor = new Encoder({ useRecords: false, tagUint8Array: false, mapsAsObjects: false });

export interface StatusListShape {
  /** who signs: its key and certificate (x5chain, unprotected) */
  signer: Issued;
  /** the `sub` claim: the address the token is served from */
  uri: string;
  /** one status per attestation index */
  statuses: number[];
  bits?: 1 | 2 | 4 | 8;
  /** seconds since the epoch */
  exp?: number;
  ttl?: number;
  /** the `typ` protected header, application/statuslist+cwt unless said */
  typ?: string;
}

async function zlib(bytes: Uint8Array): Promise<Buffer> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate'));
  return Buffer.from(await new Response(stream).arrayBuffer());
}

/** The statuses, `bits` each, the first in the least significant bits of the first byte. */
function pack(statuses: number[], bits: number): Uint8Array {
  const bytes = new Uint8Array(Math.ceil((statuses.length * bits) / 8));
  statuses.forEach((status, index) => {
    const bit = index * bits;
    bytes[Math.floor(bit / 8)]! |= status << (bit % 8);
  });
  return bytes;
}

export async function statusListToken(shape: StatusListShape): Promise<Buffer> {
  const bits = shape.bits ?? 1;
  const claims = new Map<number, unknown>([
    [2, shape.uri],
    [6, Math.floor(Date.now() / 1000)],
    ...(shape.exp !== undefined ? [[4, shape.exp] as [number, unknown]] : []),
    ...(shape.ttl !== undefined ? [[65534, shape.ttl] as [number, unknown]] : []),
    [
      65533,
      new Map<string, unknown>([
        ['bits', bits],
        ['lst', await zlib(pack(shape.statuses, bits))],
      ]),
    ],
  ]);
  const protectedBytes = cbor.encode(
    new Map<number, unknown>([
      [1, -7],
      [16, shape.typ ?? 'application/statuslist+cwt'],
    ]),
  );
  const payload = cbor.encode(claims);
  const toBeSigned = cbor.encode(['Signature1', protectedBytes, Buffer.alloc(0), payload]);
  const signature = Buffer.from(
    await webcrypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, shape.signer.keys.privateKey, toBeSigned),
  );
  return cbor.encode([protectedBytes, new Map([[33, shape.signer.der]]), payload, signature]);
}
