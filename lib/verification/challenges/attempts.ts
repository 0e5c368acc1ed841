import type { LimitName } from '../../http/limits.js';
import type { Limiter } from '../../http/rate-limit.js';
import type { ChallengeServices } from '../services.js';
import type { StepContext } from '../challenge.js';

/** A challenge's attempts are two rows of lib/http/limits.ts: `<name>-interaction` and `<name>-ip`. */
type PerInteraction<Name> = Name extends `${infer Prefix}-interaction`
  ? `${Prefix}-ip` extends LimitName
    ? Prefix
    : never
  : never;
type AttemptName = PerInteraction<LimitName>;

export interface AttemptLimit {
  /** Spends one attempt for this interaction and this IP; over either limit throws the limiter's 429. */
  spend(context: StepContext): Promise<void>;
}

/** Costly or guessable checks: each try is counted per authorization and per IP. */
export function attemptLimit(runtime: ChallengeServices, name: AttemptName): AttemptLimit {
  const limiters: Array<[Limiter, (context: StepContext) => string]> = [
    [runtime.rateLimits.limiter(`${name}-interaction`), (c) => c.attempt.uid],
    [runtime.rateLimits.limiter(`${name}-ip`), (c) => c.koa.ip],
  ];
  return {
    async spend(context) {
      for (const [limiter, key] of limiters) await limiter.consume(key(context));
    },
  };
}
