import { FlattenedSign, type FlattenedJWS } from 'jose';
import type { JWKS } from 'oidc-provider';
import { currentSigningKey } from '../security/signing-key.js';
import { EVIDENCE_TYPE, type EvidencePayload } from './document.js';

/**
 * Signs an evidence pack with the provider's current signing key, the one its signed results use: the kid is
 * published at /v1/oauth2/jwks, where anyone checks it.
 */
export async function signEvidence(jwks: JWKS, payload: EvidencePayload): Promise<FlattenedJWS> {
  const { kid, alg, key } = await currentSigningKey(jwks);
  return new FlattenedSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg, kid, typ: EVIDENCE_TYPE })
    .sign(key);
}
