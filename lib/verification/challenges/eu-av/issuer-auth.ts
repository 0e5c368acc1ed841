import { verify, type X509Certificate } from 'node:crypto';
import { Decoder, Encoder } from 'cbor-x';

/** Plain CBOR both ways: maps as Maps, byte strings as bytes, no record or typed-array extensions. */
const decoder = new Decoder({ useRecords: false, mapsAsObjects: false });
const encoder = new Encoder({ useRecords: false, tagUint8Array: false, mapsAsObjects: false });

const ALG = 1;
const X5CHAIN = 33;

/** The COSE algorithms an issuer may sign with, and the curve each one's key must be on. */
const ALGORITHMS = new Map<number, { hash: string; curve: string }>([
  [-7, { hash: 'sha256', curve: 'prime256v1' }],
  [-35, { hash: 'sha384', curve: 'secp384r1' }],
  [-36, { hash: 'sha512', curve: 'secp521r1' }],
]);

/** The issuer's COSE_Sign1 over the MSO, as the one document of a DeviceResponse carries it. */
export interface IssuerAuth {
  protectedBytes: Uint8Array;
  alg: number;
  payload: Uint8Array;
  signature: Uint8Array;
  /** the x5chain header's certificates, signer first */
  x5chain: Uint8Array[];
}

const isBytes = (value: unknown): value is Uint8Array => value instanceof Uint8Array;
const field = (map: unknown, key: string | number): unknown => (map instanceof Map ? map.get(key) : undefined);

/**
 * Reads the issuer signature of a DeviceResponse's one document ourselves, apart from the library that judges the
 * rest (verify.ts), so that the certificate whose path is validated is, by construction, the one whose key verifies
 * the signature. Returns why it cannot, for the log.
 */
export function readIssuerAuth(encoded: Uint8Array): IssuerAuth | string {
  let response: unknown;
  try {
    response = decoder.decode(encoded);
  } catch {
    return 'unreadable device response';
  }
  const documents = field(response, 'documents');
  if (!Array.isArray(documents) || documents.length !== 1) return 'not exactly one document';
  const sign1 = field(field(documents[0], 'issuerSigned'), 'issuerAuth');
  if (!Array.isArray(sign1) || sign1.length !== 4) return 'the issuer signature is not a COSE_Sign1';
  const [protectedBytes, unprotected, payload, signature] = sign1 as unknown[];
  if (!isBytes(protectedBytes) || !(unprotected instanceof Map) || !isBytes(payload) || !isBytes(signature))
    return 'the issuer signature is not a COSE_Sign1';
  let headers: unknown;
  try {
    headers = protectedBytes.length ? decoder.decode(protectedBytes) : new Map();
  } catch {
    return 'unreadable protected header';
  }
  const alg = field(headers, ALG);
  if (typeof alg !== 'number' || !ALGORITHMS.has(alg))
    return "the issuer signature's algorithm is not ES256, ES384 or ES512";
  // The library reads x5chain from either header; one in each would let two readers see two chains.
  const chains = [field(headers, X5CHAIN), unprotected.get(X5CHAIN)].filter((chain) => chain !== undefined);
  if (chains.length !== 1) return 'the issuer signature has no x5chain, or two';
  const x5chain = Array.isArray(chains[0]) ? (chains[0] as unknown[]) : [chains[0]];
  if (!x5chain.every(isBytes)) return 'x5chain holds something other than certificates';
  return { protectedBytes, alg, payload, signature, x5chain };
}

/** Whether the signer certificate's key verifies the COSE_Sign1 (Sig_structure "Signature1", no external data). */
export function issuerSignatureValid(auth: IssuerAuth, signer: X509Certificate): boolean {
  const algorithm = ALGORITHMS.get(auth.alg)!;
  const key = signer.publicKey;
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== algorithm.curve) return false;
  const toBeSigned = encoder.encode(['Signature1', auth.protectedBytes, new Uint8Array(0), auth.payload]);
  return verify(algorithm.hash, toBeSigned, { key, dsaEncoding: 'ieee-p1363' }, auth.signature);
}

/**
 * Why the device authentication of a DeviceResponse's one document is not a device signature, or undefined. Checked
 * here, before the library reads it: an empty `deviceAuth` made it throw "deviceMac is not iterable". A MAC needs a
 * reader key agreed with the device, which neither OpenID4VP nor the browser API have: only a signature counts.
 */
export function deviceAuthProblem(encoded: Uint8Array): string | undefined {
  let response: unknown;
  try {
    response = decoder.decode(encoded);
  } catch {
    return 'unreadable device response';
  }
  const documents = field(response, 'documents');
  const deviceAuth = field(field(Array.isArray(documents) ? documents[0] : undefined, 'deviceSigned'), 'deviceAuth');
  if (!(deviceAuth instanceof Map)) return 'the document has no deviceAuth';
  const signature = deviceAuth.get('deviceSignature');
  if (deviceAuth.size !== 1 || (signature === undefined && !deviceAuth.has('deviceMac')))
    return 'deviceAuth holds neither exactly one deviceSignature nor a deviceMac';
  if (signature === undefined)
    return 'deviceAuth is a deviceMac: only a device signature is accepted (no reader key is agreed over OpenID4VP)';
  if (!Array.isArray(signature) || signature.length !== 4) return 'deviceSignature is not a COSE_Sign1';
  return undefined;
}
