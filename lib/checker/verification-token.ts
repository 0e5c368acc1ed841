import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { currentSigningKey, type SigningKey } from '../security/signing-key.js';
import { epochSeconds } from '../clock.js';
import type { CheckerServices } from './services.js';
import { verificationResult, type Verification } from '../verification/verifications.js';

/** The JOSE `typ` of the signed result (docs/checker.md "The token"). */
export const VERIFICATION_TOKEN_TYPE = 'age-verification+jwt';

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
