import type { Limiter } from '../http/rate-limit.js';
import type { ExternalServices } from './services.js';

export interface ExternalLimiters {
  /** spent by every request from the client's address, before authentication */
  perIp: Limiter;
  /** spent by every authenticated request, per account (all its keys together: more keys are no more requests) */
  perToken: Limiter;
}

/** The External API's two rows of lib/http/limits.ts (requests per minute, configurable; shared on PostgreSQL). */
export function externalLimiters(runtime: ExternalServices): ExternalLimiters {
  return { perIp: runtime.rateLimits.limiter('external-ip'), perToken: runtime.rateLimits.limiter('external-token') };
}
