import { importJWK, type JWK } from 'jose';
import type { JWKS } from 'oidc-provider';

/** The algorithm a key of each type signs with when its JWK names none (the ones oidc-provider defaults to). */
const DEFAULT_ALG: Record<string, string> = { RSA: 'RS256', EC: 'ES256', OKP: 'EdDSA' };

export interface SigningKey {
  kid: string;
  alg: string;
  key: Awaited<ReturnType<typeof importJWK>>;
}

/**
 * The provider's current signing key, the one everything it signs is signed with (verification results, the signed
 * requirement, evidence packs): the first private signing key of JWKS. Rotation puts the new key first and
 * keeps the old one published until its last token expired (docs/checker.md "Rotating the signing key").
 */
export async function currentSigningKey(jwks: JWKS): Promise<SigningKey> {
  const jwk = (jwks.keys as JWK[]).find(
    (key) =>
      key.use !== 'enc' &&
      typeof key.d === 'string' &&
      typeof key.kid === 'string' &&
      key.kty !== undefined &&
      key.kty in DEFAULT_ALG,
  );
  if (!jwk?.kid || !jwk.kty) throw new Error('JWKS holds no private signing key with a kid');
  const alg = jwk.alg ?? DEFAULT_ALG[jwk.kty]!;
  return { kid: jwk.kid, alg, key: await importJWK(jwk, alg) };
}
