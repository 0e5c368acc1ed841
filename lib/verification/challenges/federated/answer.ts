import * as client from 'openid-client';
import type { FederatedProvider } from './providers.js';

/** The authorization response parameters we read; anything else the browser brings is dropped. */
export const RESPONSE_PARAMETERS = ['code', 'state', 'iss', 'id_token', 'error', 'error_description'] as const;

export function responseParameters(source: Record<string, unknown>): URLSearchParams {
  const parameters = new URLSearchParams();
  for (const name of RESPONSE_PARAMETERS) {
    const value = source[name];
    if (typeof value === 'string') parameters.set(name, value);
  }
  return parameters;
}

/** What the start step remembered (sealed in the challenge state) to check the answer against. */
export interface PendingRequest {
  state: string;
  nonce: string;
  /** PKCE verifier (code flow only) */
  codeVerifier?: string;
  /** set before the answer is checked, so a replayed callback is refused */
  used?: boolean;
}

/**
 * Checks the provider's answer through openid-client (state, nonce, issuer, audience, signature, PKCE, and the
 * code exchange) and returns the claims it vouches for. The claims (and the `sub` in them) stay in memory only.
 */
export async function verifiedClaims(
  provider: FederatedProvider,
  response: URLSearchParams,
  pending: PendingRequest,
): Promise<Record<string, unknown>> {
  const { settings, upstream, redirectUri } = provider;
  const configuration = await upstream.configuration();
  const currentUrl = new URL(redirectUri);
  if (settings.responseType === 'id_token') {
    currentUrl.hash = response.toString();
    return client.implicitAuthentication(configuration, currentUrl, pending.nonce, { expectedState: pending.state });
  }
  currentUrl.search = response.toString();
  const tokens = await client.authorizationCodeGrant(configuration, currentUrl, {
    expectedState: pending.state,
    expectedNonce: pending.nonce,
    ...(pending.codeVerifier ? { pkceCodeVerifier: pending.codeVerifier } : {}),
  });
  const idToken = tokens.claims();
  if (!idToken) throw new Error('the provider returned no ID token');
  if (settings.claimsSource === 'id_token') return idToken;
  return client.fetchUserInfo(configuration, tokens.access_token, idToken.sub);
}
