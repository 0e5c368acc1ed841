import { createHash } from 'node:crypto';
import { Encoder, Tag } from 'cbor-x';

/** Plain CBOR: byte strings stay byte strings (no typed-array tags), arrays and maps as such (no records). */
const cbor = new Encoder({ useRecords: false, tagUint8Array: false, mapsAsObjects: false });

/** SessionTranscript = [null, null, [name, SHA-256(CBOR(handover info))]], as plain CBOR. */
const sessionTranscript = (name: string, info: Array<string | null>): Uint8Array =>
  cbor.encode([null, null, [name, createHash('sha256').update(cbor.encode(info)).digest()]]);

/** A transcript as the tag-24 bytes @auth0/mdl expects for the device signature. */
export const taggedTranscript = (transcript: Uint8Array): Uint8Array => cbor.encode(new Tag(transcript, 24));

/**
 * What the device signs over when the wallet posts to our response URI (the OpenID4VPHandover of OpenID4VP 1.0). The info
 * ends with the JWK thumbprint of the response encryption key, null here: responses are not encrypted.
 */
export const redirectTranscript = ({
  clientId,
  nonce,
  responseUri,
}: {
  clientId: string;
  nonce: string;
  responseUri: string;
}): Uint8Array => taggedTranscript(sessionTranscript('OpenID4VPHandover', [clientId, nonce, null, responseUri]));

/** What the device signs over when the browser's Digital Credentials API carries the answer (the OpenID4VPDCAPIHandover): our origin. */
export const dcApiTranscript = ({ origin, nonce }: { origin: string; nonce: string }): Uint8Array =>
  taggedTranscript(sessionTranscript('OpenID4VPDCAPIHandover', [origin, nonce, null]));

/**
 * ISO/IEC 18013-7 Annex C through the Digital Credentials API: the handover hashes the base64url EncryptionInfo we
 * sent (our HPKE key and nonce) with our origin. Plain CBOR: it is also the HPKE `info` of the encrypted response.
 */
export const annexCTranscript = ({ encryptionInfo, origin }: { encryptionInfo: string; origin: string }): Uint8Array =>
  sessionTranscript('dcapi', [encryptionInfo, origin]);
