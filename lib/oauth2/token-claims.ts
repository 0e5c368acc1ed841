import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { Database } from '../store/database.js';
import { verificationReadWithCode } from './flow-storage.js';
import { findVerificationByGrant } from '../verification/verifications.js';

/** Where the verification uid rides on an access token (its `extra` claims). */
export const VERIFICATION_CLAIM = 'verification';

interface IssuedToken {
  kind: string;
  grantId?: string | undefined;
}

/**
 * oidc-provider's `extraTokenClaims`: the verification linked to the token's grant goes onto the access token,
 * so Resources finds it. No verified verification, no token: a token must mean "verified".
 */
export function verificationClaims(db: Database) {
  return async (
    ctx: KoaContextWithOIDC | undefined,
    token: IssuedToken,
  ): Promise<Record<string, string> | undefined> => {
    if (token.kind !== 'AccessToken') return undefined;
    if (!token.grantId) throw new errors.InvalidGrant('the authorization has no verification');
    // At the token endpoint the code's read brought the verification along (flow-storage.ts).
    const read = ctx ? verificationReadWithCode(ctx.state, token.grantId) : undefined;
    const verification = read === undefined ? await findVerificationByGrant(db, token.grantId) : (read ?? undefined);
    if (!verification?.verified) throw new errors.InvalidGrant('the authorization has no verification');
    return { [VERIFICATION_CLAIM]: verification.uid };
  };
}
