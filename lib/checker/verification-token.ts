import { randomUUID } from 'node:crypto';
import { importJWK, SignJWT, type JWK } from 'jose';
import type { JWKS } from 'oidc-provider';
import { epochSeconds } from '../clock.js';
import type { CheckerServices } from './services.js';
import { verificationResult, type Verification } from '../verification/verifications.js';

/** The JOSE `typ` of the signed result (docs/checker.md "The token"). */
export const VERIFICATION_TOKEN_TYPE = 'age-verification+jwt';

/** The algorithm a key of each type signs with when its JWK names none (the ones oidc-provider defaults to). */
const DEFAULT_ALG: Record<string, string> = { RSA: 'RS256', EC: 'ES256', OKP: 'EdDSA' };

export interface SigningKey {
  kid: string;
  alg: string;
  key: Awaited<ReturnType<typeof importJWK>>;
}

/**
 * The provider's current signing key: the first private signing key of JWKS. Rotation puts the new key first and
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

/** Signs verification results with the provider's key (imported once per runtime). */
export interface VerificationSigner {
  /** A compact JWS for `verification`, addressed to `audience` (a public key or a client_id), expiring with it. */
  sign(verification: Verification, audience: string): Promise<string>;
}

export function createVerificationSigner(runtime: CheckerServices): VerificationSigner {
  let signingKey: Promise<SigningKey> | undefined;
  return {
    async sign(verification, audience) {
      signingKey ??= currentSigningKey(runtime.config.jwks);
      const { kid, alg, key } = await signingKey;
      const now = epochSeconds(runtime.clock.now());
      const expiresAt = epochSeconds(verification.expiresAt);
      // The rule that applied rides in the token only: Resources' JSON stays the spec's.
      return new SignJWT({
        ...verificationResult(verification, now),
        environment: verification.environment,
        policy: verification.policy,
      })
        .setProtectedHeader({ alg, kid, typ: VERIFICATION_TOKEN_TYPE })
        .setIssuer(runtime.config.issuer)
        .setAudience(audience)
        .setIssuedAt(now)
        .setExpirationTime(expiresAt)
        .setJti(randomUUID())
        .sign(key);
    },
  };
}
