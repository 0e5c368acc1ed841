import type { Limiter } from '../../http/rate-limit.js';
import type { OAuth2Services } from '../services.js';
import { signInGuard, type SignInGuard } from '../../security/sign-in-guard.js';
import { INTERACTION_COOKIE_PATH } from './browser-visitor.js';

export interface InteractionLimits {
  signIn: SignInGuard;
  accountCreationPerIp: Limiter;
  usernameTakenPerVerification: Limiter;
  challengeFailuresPerInteraction: Limiter;
  challengeFailuresPerIp: Limiter;
}

/** Limits on what a stranger can repeat on the interaction pages (every attempt counts, successful or not, except where reset). */
export function interactionLimits(runtime: OAuth2Services): InteractionLimits {
  const limiter = runtime.rateLimits.limiter.bind(runtime.rateLimits);
  return {
    // Password guessing (sign-in-guard.ts); a browser that signed in to the account before keeps a device cookie.
    signIn: signInGuard(runtime.rateLimits, 'visitor-sign-in', {
      name: 'ap_visitor_device',
      path: INTERACTION_COOKIE_PATH,
    }),
    accountCreationPerIp: limiter('visitor-account-create-ip'),
    // "This username is taken" answers: a visitor finds a free name in a few tries, a prober needs a new verification
    // (a passed challenge) for every few names besides the per-address ceiling above.
    usernameTakenPerVerification: limiter('visitor-username-taken-verification'),
    // Challenges that did not pass (refused or failed): a visitor may retry, a script may not keep trying.
    challengeFailuresPerInteraction: limiter('challenge-failure-interaction'),
    challengeFailuresPerIp: limiter('challenge-failure-ip'),
  };
}
