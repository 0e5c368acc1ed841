import type { Context } from 'koa';
import { errors } from 'oidc-provider';
import type Provider from 'oidc-provider';
import { HttpError } from '../http/errors.js';
import { render } from '../http/render.js';
import { browserLanguage } from '../i18n/negotiate.js';
import type { CheckerServices } from './services.js';
import { findVerificationByGrant } from '../verification/verifications.js';
import { checkerCallbackUrl, checkerClientId } from './client.js';
import { findKeyWebsite } from '../websites/keys.js';
import { validCallbackQuery, type CallbackQuery } from './requests.js';
import { openState, type CheckerState } from './state.js';
import type { VerificationSigner } from './verification-token.js';

/** What reaches the page: the signed token, or an error code (`access_denied` when the visitor declined). */
type Result = { token: string } | { error: string; message: string };

/** An OAuth2 error code the provider sent back passes on as is; anything else is `unavailable`. */
const ERROR_CODE = /^[a-z_]{1,64}$/;

const SPENT_CODE: Result = {
  error: 'unavailable',
  message: 'the authorization code is invalid, expired or already used',
};

/**
 * The code, once: it must be this key's client's, for our callback, unexpired and unused; consuming it here
 * (no token endpoint round trip) leaves it as spent as the token endpoint would.
 */
async function verificationToken(
  runtime: CheckerServices,
  provider: Provider,
  signer: VerificationSigner,
  state: CheckerState,
  value: string,
): Promise<Result> {
  const code = await provider.AuthorizationCode.find(value);
  if (
    !code ||
    !code.isValid ||
    code.clientId !== checkerClientId(state.publicKey) ||
    code.redirectUri !== checkerCallbackUrl(runtime.config.issuer)
  ) {
    return SPENT_CODE;
  }
  // The adapter redeems atomically: a second, concurrent callback with the same code loses here (invalid_grant,
  // and the grant is revoked as a replay), so one code yields at most one token.
  try {
    await code.consume();
  } catch (error) {
    if (error instanceof errors.InvalidGrant) return SPENT_CODE;
    throw error;
  }
  const verification = code.grantId ? await findVerificationByGrant(runtime.db, code.grantId) : undefined;
  if (!verification?.verified || verification.expiresAt <= runtime.clock.now()) {
    return { error: 'unavailable', message: 'the verification has expired' };
  }
  return { token: await signer.sign(verification, state.publicKey) };
}

async function resultOf(
  runtime: CheckerServices,
  provider: Provider,
  signer: VerificationSigner,
  state: CheckerState,
  query: CallbackQuery,
): Promise<Result> {
  if (query.code) return verificationToken(runtime, provider, signer, state, query.code);
  const error = query.error && ERROR_CODE.test(query.error) ? query.error : 'unavailable';
  return {
    error,
    message: error === 'access_denied' ? 'the visitor declined' : 'the verification could not be completed',
  };
}

/**
 * Hands the result to the page: posted to its exact origin by the window, or (target=redirect) in the fragment of
 * its return address. The return is a page that moves on by script or link, not a 303: the chain began with a form
 * on our pages, and browsers hold every redirect after a form to that page's CSP form-action.
 */
function deliver(ctx: Context, state: CheckerState, website: string, result: Result): void {
  const variables =
    state.target === 'redirect' && state.returnTo
      ? {
          returnTo: `${state.returnTo}#${'token' in result ? `age_provider_token=${result.token}` : `age_provider_error=${encodeURIComponent(result.error)}`}`,
        }
      : { origin: state.origin, message: JSON.stringify({ type: 'age-provider:result', ...result }) };
  render(ctx, 'checker/relay.njk', browserLanguage(ctx), { website, ...variables });
}

/**
 * GET /v1/checker/callback: the internal client's redirect_uri. Only a state we sealed is followed; the result goes
 * to the origin and return address sealed in it, which the start page checked against the key's website.
 */
export async function checkerCallback(
  ctx: Context,
  runtime: CheckerServices,
  provider: Provider,
  signer: VerificationSigner,
): Promise<void> {
  const query = { ...ctx.query };
  if (!validCallbackQuery(query)) throw new HttpError(400, 'the callback is malformed');
  const state = openState(runtime, query.state);
  if (!state) throw new HttpError(400, 'the verification request expired or was altered');
  // A key regenerated while the visitor verified no longer works, even for this verification.
  const found = await findKeyWebsite(runtime.db, state.publicKey);
  const result = found
    ? await resultOf(runtime, provider, signer, state, query)
    : { error: 'invalid_key', message: 'this key was replaced or removed' };
  deliver(ctx, state, found?.website.name ?? '', result);
}
