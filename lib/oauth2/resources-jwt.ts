import type { Context } from 'koa';
import { createVerificationSigner } from '../checker/verification-token.js';
import type { OAuth2Services } from './services.js';
import type { Verification } from '../verification/verifications.js';

const JWT_TYPE = 'application/jwt';

/**
 * Resources' second representation (docs/checker.md "The token"): with `Accept: application/jwt` the verification
 * comes as the signed token, addressed to the client. Returns whether it answered; JSON stays the default.
 */
export function resourcesJwtAnswer(runtime: OAuth2Services) {
  const signer = createVerificationSigner(runtime);
  return async (ctx: Context, verification: Verification, clientId: string): Promise<boolean> => {
    ctx.vary('Accept');
    if (ctx.accepts('application/json', JWT_TYPE) !== JWT_TYPE) return false;
    ctx.type = JWT_TYPE;
    ctx.body = await signer.sign(verification, clientId);
    return true;
  };
}
