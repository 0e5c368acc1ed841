import type { Limiter } from '../../http/rate-limit.js';
import type { Runtime } from '../../runtime.js';

export interface InteractionLimits {
  signInPerAccount: Limiter;
  signInPerIp: Limiter;
  accountCreationPerIp: Limiter;
  challengeFailuresPerInteraction: Limiter;
  challengeFailuresPerIp: Limiter;
}

/** Limits on what a stranger can repeat on the interaction pages (every attempt counts, successful or not, except where reset). */
export function interactionLimits(runtime: Runtime): InteractionLimits {
  const limiter = runtime.rateLimits.limiter.bind(runtime.rateLimits);
  return {
    // Password guessing: per username (reset on success), and per address across usernames.
    signInPerAccount: limiter({ name: 'visitor-sign-in-account', points: 10, duration: 900 }),
    signInPerIp: limiter({ name: 'visitor-sign-in-ip', points: 50, duration: 900 }),
    accountCreationPerIp: limiter({ name: 'visitor-account-create-ip', points: 10, duration: 3600 }),
    // Challenges that did not pass (refused or failed): a visitor may retry, a script may not keep trying.
    challengeFailuresPerInteraction: limiter({ name: 'challenge-failure-interaction', points: 10, duration: 3600 }),
    challengeFailuresPerIp: limiter({ name: 'challenge-failure-ip', points: 100, duration: 3600 }),
  };
}
