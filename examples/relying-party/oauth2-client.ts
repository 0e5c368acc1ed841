import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { RelyingPartySettings } from './settings.js';

/** One verification attempt: what the site remembers (in a signed cookie) between the button and the callback. */
export interface Attempt {
  state: string;
  /** PKCE code verifier (RFC 7636); only its S256 challenge travels in the authorization request */
  codeVerifier: string;
}

/** The Resources endpoint's answer. */
export interface Verification {
  verified: boolean;
  uid: string;
  country: string;
  country_subdivision: string | null;
  assurance_level: string;
  age_threshold: number;
  reused: boolean;
  expires_at: number;
  expires_in: number;
}

export class ProviderError extends Error {
  override name = 'ProviderError';
}

export function newAttempt(): Attempt {
  return { state: randomBytes(24).toString('base64url'), codeVerifier: randomBytes(32).toString('base64url') };
}

/** Constant-time comparison of the returned state with the one sent (digests first, so lengths never leak). */
export function stateMatches(expected: string, received: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(expected), digest(received));
}

export const redirectUri = (settings: RelyingPartySettings): string => `${settings.siteUrl}/callback`;

/** The authorization endpoint of the age verification flow, with PKCE S256. */
export function authorizationUrl(settings: RelyingPartySettings, attempt: Attempt): string {
  const url = new URL(`${settings.ageProviderUrl}/v1/oauth2/checker`);
  url.search = new URLSearchParams({
    client_id: settings.clientId,
    redirect_uri: redirectUri(settings),
    response_type: 'code',
    scope: 'read',
    state: attempt.state,
    language: settings.language,
    code_challenge: createHash('sha256').update(attempt.codeVerifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  return url.toString();
}

// RFC 6749 §2.3.1: client id and secret are form-urlencoded before they are joined and base64-encoded.
const basicAuthorization = (settings: RelyingPartySettings): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(settings.clientId)}:${encodeURIComponent(settings.clientSecret)}`).toString('base64')}`;

async function json(response: Response, what: string): Promise<Record<string, unknown>> {
  const body = (await response.json().catch(() => undefined)) as unknown;
  if (!response.ok || typeof body !== 'object' || body === null) {
    const error = (body as { error?: unknown } | undefined)?.error;
    throw new ProviderError(`${what} answered ${response.status}${typeof error === 'string' ? ` (${error})` : ''}`);
  }
  return body as Record<string, unknown>;
}

/** Exchanges the authorization code at the Token endpoint (client authentication by Basic header) for an access token. */
export async function exchangeCode(settings: RelyingPartySettings, attempt: Attempt, code: string): Promise<string> {
  const response = await fetch(`${settings.ageProviderUrl}/v1/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: basicAuthorization(settings),
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri(settings),
      code_verifier: attempt.codeVerifier,
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = await json(response, 'the token endpoint');
  if (body.token_type !== 'Bearer' || typeof body.access_token !== 'string')
    throw new ProviderError('the token endpoint gave no bearer token');
  return body.access_token;
}

export const isVerification = (value: unknown): value is Verification => {
  const v = value as Partial<Verification> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.verified === 'boolean' &&
    typeof v.uid === 'string' &&
    typeof v.country === 'string' &&
    (v.country_subdivision === null || typeof v.country_subdivision === 'string') &&
    typeof v.assurance_level === 'string' &&
    typeof v.age_threshold === 'number' &&
    typeof v.reused === 'boolean' &&
    typeof v.expires_at === 'number' &&
    typeof v.expires_in === 'number'
  );
};

/** Reads the verification result from the Resources endpoint. */
export async function readVerification(settings: RelyingPartySettings, accessToken: string): Promise<Verification> {
  const response = await fetch(`${settings.ageProviderUrl}/v1/oauth2/resources`, {
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
    signal: AbortSignal.timeout(10_000),
  });
  const { resources } = await json(response, 'the resources endpoint');
  if (!isVerification(resources)) throw new ProviderError('the resources endpoint answered an unexpected body');
  return resources;
}
