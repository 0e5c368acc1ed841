import { createHash } from 'node:crypto';
import { Encoder, Tag } from 'cbor-x';

/** Plain CBOR: byte strings stay byte strings (no typed-array tags), arrays and maps as such (no records). */
const cbor = new Encoder({ useRecords: false, tagUint8Array: false, mapsAsObjects: false });

/**
 * SessionTranscript = [null, null, [name, SHA-256(CBOR(handover info))]] as the tag-24 bytes @auth0/mdl expects.
 * The info ends with the JWK thumbprint of the response encryption key, null here: responses are not encrypted.
 */
function transcript(name: string, info: Array<string | null>): Uint8Array {
  const handoverInfoHash = createHash('sha256').update(cbor.encode(info)).digest();
  return cbor.encode(new Tag(cbor.encode([null, null, [name, handoverInfoHash]]), 24));
}

/** What the device signs over when the wallet posts to our response URI (OpenID4VP 1.0, Appendix B.2.6.1). */
export const redirectTranscript = ({ clientId, nonce, responseUri }: { clientId: string; nonce: string; responseUri: string }): Uint8Array =>
  transcript('OpenID4VPHandover', [clientId, nonce, null, responseUri]);

/** What the device signs over when the browser's Digital Credentials API carries the answer (Appendix B.2.6.2): our origin. */
export const dcApiTranscript = ({ origin, nonce }: { origin: string; nonce: string }): Uint8Array =>
  transcript('OpenID4VPDCAPIHandover', [origin, nonce, null]);
