import { displayNameOf } from '../../catalogue.js';
import type {} from 'koa-body';
import * as client from 'openid-client';
import { safeEqual } from '../../../security/hashing.js';
import { type AssuranceLevel, type Challenge, type StepContext } from '../../challenge.js';
import { responseParameters, verifiedClaims, type PendingRequest } from './answer.js';
import { bindState } from './binding.js';
import { judgeAge, mapLevel, readClaim, withThreshold } from './claims.js';
import type { FederatedProvider } from './providers.js';
import { isUpstreamDown } from './upstream.js';

/** What an error tells the log: its kind, never a claim or an identifier. */
const describe = (error: unknown): Record<string, unknown> => {
  const { name, message, code } = error as { name?: unknown; message?: unknown; code?: unknown };
  return { error: String(name ?? 'Error'), reason: String(message ?? ''), ...(code ? { code: String(code) } : {}) };
};

/**
 * A challenge answered by an OpenID Connect provider: the visitor follows a link there (PKCE, state and nonce), comes back
 * through the fixed callback URI, and the configured claim decides. Nothing from the provider is stored.
 */
export function createFederatedChallenge(provider: FederatedProvider): Challenge {
  const { settings } = provider;
  const { name } = settings;
  const display = displayNameOf(name);

  const refuse = (context: StepContext, problem: 'invalid' | 'used'): void =>
    context.render(
      'challenges/federated-problem.njk',
      { provider: display, problem, leaveUrl: context.stepUrl('leave') },
      400,
    );

  /** The way to the provider, with a fresh state, nonce and PKCE verifier (a reload replaces them). */
  async function start(context: StepContext): Promise<void> {
    const { runtime, attempt } = context;
    let configuration: client.Configuration;
    try {
      configuration = await provider.upstream.configuration();
    } catch (error) {
      runtime.log.warn('federated provider unreachable', { challenge: name, ...describe(error) });
      return context.finish({ passed: false, reason: 'unavailable' });
    }
    const code = settings.responseType === 'code';
    const pending: PendingRequest = {
      state: bindState(runtime.sealer, { uid: attempt.uid, challenge: name }),
      nonce: client.randomNonce(),
      ...(code ? { codeVerifier: client.randomPKCECodeVerifier() } : {}),
    };
    await context.state.set(pending);
    const threshold = attempt.ageThreshold;
    const extra = Object.fromEntries(
      Object.entries(settings.authorizationParameters).map(([key, value]) => [key, withThreshold(value, threshold)]),
    );
    const url = client.buildAuthorizationUrl(configuration, {
      ...extra,
      redirect_uri: provider.redirectUri,
      scope: withThreshold(settings.scopes, threshold),
      state: pending.state,
      nonce: pending.nonce,
      ui_locales: attempt.language,
      ...(settings.responseMode !== 'query' || !code ? { response_mode: settings.responseMode } : {}),
      ...(pending.codeVerifier
        ? {
            code_challenge: await client.calculatePKCECodeChallenge(pending.codeVerifier),
            code_challenge_method: 'S256',
          }
        : {}),
      // AgeKey's Use flow: the thresholds to answer go in a `claims` request parameter (docs.agekey.org).
      ...(settings.ageKeyClaims
        ? { claims: JSON.stringify({ ...settings.ageKeyClaims, age_thresholds: [threshold] }) }
        : {}),
    });
    // A page with a link, not a redirect: after the prompt's form, browsers apply its CSP form-action along the
    // redirect chain and would block the provider's origin; following a link is a fresh navigation.
    context.render('challenges/federated.njk', {
      provider: display,
      age: threshold,
      authorizationUrl: url.href,
      leaveUrl: context.stepUrl('leave'),
    });
  }

  /** The provider's answer, relayed by the fixed callback route into this interaction. */
  async function callback(context: StepContext): Promise<void> {
    const { koa, runtime, attempt } = context;
    const response = responseParameters(
      koa.method === 'POST' ? ((koa.request.body ?? {}) as Record<string, unknown>) : koa.query,
    );
    const pending = await context.state.get<PendingRequest>();
    if (!pending || pending.used) return refuse(context, 'used');
    const state = response.get('state');
    if (state === null || !safeEqual(state, pending.state)) return refuse(context, 'invalid');
    await context.state.set<PendingRequest>({ ...pending, used: true });

    const error = response.get('error');
    if (error !== null) {
      runtime.log.info('federated provider answered with an error', { challenge: name, code: error.slice(0, 64) });
      return context.finish({ passed: false, reason: error === 'access_denied' ? 'cancelled' : 'unavailable' });
    }

    let claims: Record<string, unknown>;
    try {
      claims = await verifiedClaims(provider, response, pending);
    } catch (failure) {
      const down = isUpstreamDown(failure);
      runtime.log.warn(down ? 'federated provider unreachable' : 'federated answer rejected', {
        challenge: name,
        ...describe(failure),
      });
      return context.finish({ passed: false, reason: down ? 'unavailable' : 'failed' });
    }

    const threshold = attempt.ageThreshold;
    const claimPath = withThreshold(settings.ageClaim, threshold);
    const answer = judgeAge(readClaim(claims, claimPath), threshold, runtime.clock.now());
    if (answer === 'unknown')
      runtime.log.warn('federated answer carries no usable age claim', { challenge: name, claim: claimPath });
    if (answer !== 'over') return context.finish({ passed: false, reason: 'failed' });
    return context.finish({ passed: true, assuranceLevel: levelOf(context, claims) });
  }

  /** The provider's level when configured and mapped; an unmapped value records the lowest level, never a guess upwards. */
  function levelOf(context: StepContext, claims: Record<string, unknown>): AssuranceLevel {
    if (!settings.levelClaim) return settings.assuranceLevel;
    const level = mapLevel(readClaim(claims, settings.levelClaim), settings.levelMap);
    if (level) return level;
    context.runtime.log.warn('federated level claim missing or not mapped; recording STANDARD', {
      challenge: name,
      claim: settings.levelClaim,
    });
    return 'STANDARD';
  }

  return {
    name,
    free: settings.free,
    assuranceLevel: settings.assuranceLevel,
    steps: {
      start: { GET: start },
      callback: { GET: callback, POST: callback },
      leave: { POST: (context) => context.finish({ passed: false, reason: 'cancelled' }) },
    },
  };
}
