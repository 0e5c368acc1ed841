import type { Limiter } from '../../http/rate-limit.js';
import type { Runtime } from '../../runtime.js';
import type { StepContext } from '../challenge.js';

export interface AttemptPolicy {
  /** limiter name prefix, e.g. "selfie" */
  name: string;
  /** attempts one authorization (interaction) may make */
  perInteraction: number;
  /** attempts one IP address may make, across authorizations */
  perIp: number;
  /** window in seconds for both */
  windowSeconds: number;
}

export interface AttemptLimit {
  /** Spends one attempt for this interaction and this IP; over either limit throws the limiter's 429. */
  spend(context: StepContext): Promise<void>;
}

/** Costly or guessable checks: each try is counted per authorization and per IP. */
export function attemptLimit(runtime: Runtime, policy: AttemptPolicy): AttemptLimit {
  const limiters: Array<[Limiter, (context: StepContext) => string]> = [
    [runtime.rateLimits.limiter({ name: `${policy.name}-interaction`, points: policy.perInteraction, duration: policy.windowSeconds }), (c) => c.attempt.uid],
    [runtime.rateLimits.limiter({ name: `${policy.name}-ip`, points: policy.perIp, duration: policy.windowSeconds }), (c) => c.koa.ip],
  ];
  return {
    async spend(context) {
      for (const [limiter, key] of limiters) await limiter.consume(key(context));
    },
  };
}
