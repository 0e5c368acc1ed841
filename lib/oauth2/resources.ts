import type { Context } from 'koa';
import { epochSeconds } from '../clock.js';
import { HttpError } from '../http/errors.js';
import type { OAuth2Services } from './services.js';
import { storedKey } from '../store/oidc-payloads.js';
import { findBearerVerification, verificationResult } from '../verification/verifications.js';
import { resourcesJwtAnswer } from './resources-jwt.js';
import { VERIFICATION_CLAIM } from './token-claims.js';

/** RFC 6750 §2.1 b64token. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/** RFC 6750 §3.1: the error with its WWW-Authenticate challenge, answered in JSON by the surface (oauth-errors.ts). */
function bearerError(
  realm: string,
  status: 400 | 401,
  error: 'invalid_request' | 'invalid_token',
  description: string,
): HttpError {
  return new HttpError(
    status,
    description,
    { 'WWW-Authenticate': `Bearer realm="${realm}", error="${error}", error_description="${description}"` },
    error,
  );
}

/**
 * GET /v1/oauth2/resources: the verification behind a bearer token, in one statement that also refuses a
 * revoked grant, a disabled configuration and a lapsed credential (findBearerVerification). No clock tolerance: an
 * expired token is refused. The back channel (lib/oauth2/surface.ts) calls it for GET and HEAD on its path, without a
 * router of its own: the surface has already matched the path and the method.
 */
export function resourcesEndpoint(runtime: OAuth2Services): (ctx: Context) => Promise<void> {
  const realm = runtime.config.issuer;
  const answeredAsJwt = resourcesJwtAnswer(runtime);

  return async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    const header = ctx.get('Authorization');
    if (!header || !/^Bearer(\s|$)/i.test(header)) {
      throw bearerError(realm, 401, 'invalid_token', 'a bearer access token is required');
    }
    const value = BEARER.exec(header)?.[1];
    if (!value) {
      throw bearerError(realm, 400, 'invalid_request', 'the Authorization header is malformed');
    }
    const found = await findBearerVerification(runtime.db, storedKey(value), VERIFICATION_CLAIM, runtime.clock.now());
    if (!found) {
      throw bearerError(realm, 401, 'invalid_token', 'the access token is invalid, expired or revoked');
    }
    const { verification, clientId } = found;
    const now = epochSeconds(runtime.clock.now());
    if (epochSeconds(verification.expiresAt) <= now) {
      throw bearerError(realm, 401, 'invalid_token', 'the verification behind this access token has expired');
    }
    if (await answeredAsJwt(ctx, verification, clientId)) return;
    ctx.body = { resources: verificationResult(verification, now) };
  };
}
