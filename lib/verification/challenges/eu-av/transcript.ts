import { createHash } from 'node:crypto';
import { Encoder, Tag } from 'cbor-x';

/** Plain CBOR: byte strings stay byte strings (no typed-array tags), arrays and maps as such (no records). */
const cbor = new Encoder({ useRecords: false, tagUint8Array: false, mapsAsObjects: false });

/** What the device signature binds the presentation to (OpenID4VP 1.0, Appendix B.2.6.1). */
export interface TranscriptInputs {
  clientId: string;
  nonce: string;
  responseUri: string;
}

/**
 * SessionTranscript = [null, null, ["OpenID4VPHandover", SHA-256(CBOR([client_id, nonce, null, response_uri]))]]
 * (null: the response is not encrypted, so there is no JWK thumbprint), as the tag-24 bytes @auth0/mdl expects.
 */
export function sessionTranscriptBytes({ clientId, nonce, responseUri }: TranscriptInputs): Uint8Array {
  const handoverInfoHash = createHash('sha256').update(cbor.encode([clientId, nonce, null, responseUri])).digest();
  const transcript = [null, null, ['OpenID4VPHandover', handoverInfoHash]];
  return cbor.encode(new Tag(cbor.encode(transcript), 24));
}
