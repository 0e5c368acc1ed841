import { HttpError } from '../../../http/errors.js';
import type { Limiter } from '../../../http/rate-limit.js';
import type { Runtime } from '../../../runtime.js';
import type { StepContext } from '../../challenge.js';

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
  /** Spends one attempt for this interaction and this IP; over either limit throws a 429 in the visitor's language. */
  spend(context: StepContext): Promise<void>;
}

/** Vendor checks cost money and invite guessing: each try is counted per authorization and per IP. */
export function attemptLimit(runtime: Runtime, policy: AttemptPolicy): AttemptLimit {
  const limiters: Array<[Limiter, (context: StepContext) => string]> = [
    [runtime.rateLimits.limiter({ name: `${policy.name}-interaction`, points: policy.perInteraction, duration: policy.windowSeconds }), (c) => c.attempt.uid],
    [runtime.rateLimits.limiter({ name: `${policy.name}-ip`, points: policy.perIp, duration: policy.windowSeconds }), (c) => c.koa.ip],
  ];
  return {
    async spend(context) {
      for (const [limiter, key] of limiters) {
        try {
          await limiter.consume(key(context));
        } catch (error) {
          if (!(error instanceof HttpError) || error.status !== 429) throw error;
          const minutes = Math.max(1, Math.ceil(Number(error.headers['Retry-After'] ?? 60) / 60));
          throw new HttpError(429, context.t('challenges.vendors.tooManyAttempts', { minutes }), error.headers);
        }
      }
    },
  };
}
