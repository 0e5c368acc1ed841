import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { currentSigningKey, type SigningKey } from '../security/signing-key.js';
import { epochSeconds } from '../clock.js';
import type { RequirementServices } from './services.js';

/** The JOSE `typ` of a signed requirement answer (docs/geolocation.md "Signed answer"). */
export const REQUIREMENT_TOKEN_TYPE = 'age-requirement+jwt';
/**
 * How long a signed answer holds: long enough for a website's server to read it and remember the visitor for a while,
 * short enough that a visitor who moves (or an answer handed to someone else) is asked again soon.
 */
export const REQUIREMENT_TOKEN_SECONDS = 600;

export interface RequirementClaims {
  required: boolean;
  country: string;
  country_subdivision: string | null;
  age_threshold: number;
  environment: 'LIVE' | 'TEST';
}

/**
 * Signs the requirement for a website's server: the answer the visitor's browser fetched, which the server cannot
 * ask for itself (the location is the caller's). Signed with the same key as verification results, under its own
 * `typ` and without a `verified` claim, so it can never pass for one.
 */
export function createRequirementSigner(
  runtime: Pick<RequirementServices, 'config' | 'clock'>,
): (claims: RequirementClaims, publicKey: string) => Promise<string> {
  let signingKey: Promise<SigningKey> | undefined;
  return async (claims, publicKey) => {
    signingKey ??= currentSigningKey(runtime.config.jwks);
    const { kid, alg, key } = await signingKey;
    const now = epochSeconds(runtime.clock.now());
    return new SignJWT({ ...claims })
      .setProtectedHeader({ alg, kid, typ: REQUIREMENT_TOKEN_TYPE })
      .setIssuer(runtime.config.issuer)
      .setAudience(publicKey)
      .setIssuedAt(now)
      .setExpirationTime(now + REQUIREMENT_TOKEN_SECONDS)
      .setJti(randomUUID())
      .sign(key);
  };
}
