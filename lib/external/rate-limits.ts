import { perMinuteSetting, type Limiter } from '../http/rate-limit.js';
import type { Runtime } from '../runtime.js';

/** Requests per minute, configurable through the environment; generous for scripts, low enough to stop hammering. */
export const EXTERNAL_RATE_LIMIT_DEFAULTS = { perToken: 1200, perIp: 3000 } as const;
const ENV = { perToken: 'EXTERNAL_API_RATE_LIMIT_PER_TOKEN', perIp: 'EXTERNAL_API_RATE_LIMIT_PER_IP' } as const;

const perMinute = (runtime: Runtime, key: keyof typeof ENV): number => perMinuteSetting(runtime.env, ENV[key], EXTERNAL_RATE_LIMIT_DEFAULTS[key]);

export interface ExternalLimiters {
  /** spent by every request from the client's address, before authentication */
  perIp: Limiter;
  /** spent by every authenticated request, per webmaster (one active token each) */
  perToken: Limiter;
}

/** Read at start-up, so a bad setting stops the server with a clear message. Stored per runtime.rateLimits (shared on PostgreSQL). */
export function externalLimiters(runtime: Runtime): ExternalLimiters {
  return {
    perIp: runtime.rateLimits.limiter({ name: 'external-ip', points: perMinute(runtime, 'perIp'), duration: 60 }),
    perToken: runtime.rateLimits.limiter({ name: 'external-token', points: perMinute(runtime, 'perToken'), duration: 60 }),
  };
}
