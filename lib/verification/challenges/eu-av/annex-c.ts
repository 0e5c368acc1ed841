import { randomBytes } from 'node:crypto';
import { Decoder, Encoder, Tag } from 'cbor-x';
import { newRecipientKey, openBase } from './hpke.js';
import { AV_DOCTYPE, ageElement } from './request.js';
import { annexCTranscript } from './transcript.js';

/** Plain CBOR both ways: byte strings as such, maps with integer keys (COSE_Key) kept as maps. */
const cbor = new Encoder({ useRecords: false, tagUint8Array: false, mapsAsObjects: false });
const decoder = new Decoder({ useRecords: false, mapsAsObjects: true });

/** The browser protocol of ISO/IEC 18013-7 Annex C, the AV profile's default for the Digital Credentials API. */
export const ANNEX_C_PROTOCOL = 'org-iso-mdoc';

/** What one page view keeps to open the answer: our HPKE key (raw, base64url) and the EncryptionInfo as sent. */
export interface AnnexCRequest {
  privateKey: string;
  publicKey: string;
  encryptionInfo: string;
}

const COSE_KEY = { kty: 1, crv: -1, x: -2, y: -3, EC2: 2, P256: 1 } as const;

/** A fresh HPKE key and nonce: EncryptionInfo = ["dcapi", {nonce, recipientPublicKey: COSE_Key}], base64url. */
export function newAnnexCRequest(): AnnexCRequest {
  const key = newRecipientKey();
  const recipientPublicKey = new Map<number, number | Buffer>([
    [COSE_KEY.kty, COSE_KEY.EC2],
    [COSE_KEY.crv, COSE_KEY.P256],
    [COSE_KEY.x, key.publicKey.subarray(1, 33)],
    [COSE_KEY.y, key.publicKey.subarray(33)],
  ]);
  const info = [
    'dcapi',
    new Map<string, unknown>([
      ['nonce', randomBytes(16)],
      ['recipientPublicKey', recipientPublicKey],
    ]),
  ];
  return {
    privateKey: key.privateKey.toString('base64url'),
    publicKey: key.publicKey.toString('base64url'),
    encryptionInfo: Buffer.from(cbor.encode(info)).toString('base64url'),
  };
}

/**
 * The request's data for the browser: a DeviceRequest for the AV attestation's age_over_NN (intent to retain:
 * false) and our EncryptionInfo. The PID is asked through OpenID4VP beside it (a DeviceRequest cannot say "either").
 */
export function annexCRequestData(
  request: AnnexCRequest,
  threshold: number,
): { deviceRequest: string; encryptionInfo: string } {
  const itemsRequest = new Map<string, unknown>([
    ['docType', AV_DOCTYPE],
    ['nameSpaces', new Map([[AV_DOCTYPE, new Map([[ageElement(threshold), false]])]])],
  ]);
  const deviceRequest = new Map<string, unknown>([
    ['version', '1.0'],
    ['docRequests', [new Map([['itemsRequest', new Tag(cbor.encode(itemsRequest), 24)]])]],
  ]);
  return {
    deviceRequest: Buffer.from(cbor.encode(deviceRequest)).toString('base64url'),
    encryptionInfo: request.encryptionInfo,
  };
}

/**
 * The DeviceResponse inside the browser's answer (`response`: base64url EncryptedResponse = ["dcapi", {enc,
 * cipherText}]), opened with our key and the transcript over our EncryptionInfo and origin; with that transcript,
 * which the device signature must cover too. Undefined for anything that is not such an answer or does not open.
 */
export function openAnnexCResponse(
  response: string,
  request: AnnexCRequest,
  origin: string,
): { deviceResponse: Buffer; transcript: Uint8Array } | undefined {
  const transcript = annexCTranscript({ encryptionInfo: request.encryptionInfo, origin });
  try {
    const decoded: unknown = decoder.decode(Buffer.from(response, 'base64url'));
    if (!Array.isArray(decoded) || decoded.length !== 2 || decoded[0] !== 'dcapi') return undefined;
    const { enc, cipherText } = (decoded[1] ?? {}) as { enc?: unknown; cipherText?: unknown };
    if (!(enc instanceof Uint8Array) || !(cipherText instanceof Uint8Array)) return undefined;
    const key = {
      privateKey: Buffer.from(request.privateKey, 'base64url'),
      publicKey: Buffer.from(request.publicKey, 'base64url'),
    };
    return { deviceResponse: openBase(key, enc, transcript, cipherText), transcript };
  } catch {
    return undefined;
  }
}
