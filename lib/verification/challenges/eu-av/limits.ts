import { isRateLimited } from '../../../http/rate-limit.js';
import type { ChallengeServices } from '../../services.js';
import { sha256 } from '../../../security/hashing.js';
import { CHANNELS, type PendingPresentation } from './request.js';

/** How many answers a wallet may post: per request and per authorization (lib/http/limits.ts), keyed by what the answer names. */
export function answerLimits(runtime: ChallengeServices) {
  const perRequest = runtime.rateLimits.limiter('eu-av-response-request');
  const perInteraction = runtime.rateLimits.limiter('eu-av-response-interaction');
  // The state lets a wallet answer; the counters' keys are its hash, never the state itself.
  const requestKey = (state: string): string => sha256(state);
  return {
    /** Spends one answer of the request and of its interaction; 429 when either has none left. */
    async spend(uid: string, state: string): Promise<void> {
      await perInteraction.consume(uid);
      await perRequest.consume(requestKey(state));
    },
    /** Whether this page view's wallet answers are refused for now, so the page can say why nothing arrives. */
    async exhausted(uid: string, pending: PendingPresentation): Promise<boolean> {
      try {
        await perInteraction.check(uid);
        for (const channel of CHANNELS) await perRequest.check(requestKey(pending.requests[channel].state));
        return false;
      } catch (error) {
        if (isRateLimited(error)) return true;
        throw error;
      }
    },
  };
}
