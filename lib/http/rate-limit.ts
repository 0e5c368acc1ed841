import type { Middleware, Context } from 'koa';
import {
  RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type IRateLimiterOptions, type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { readSettings } from '../config/env-settings.js';
import { isEmbedded, type Database } from '../store/database.js';
import { HttpError } from './errors.js';

export interface RateLimitPolicy {
  /** unique name, part of the stored key */
  name: string;
  /** attempts allowed per window */
  points: number;
  /** window in seconds */
  duration: number;
  /** seconds blocked once the points are spent (default: rest of the window) */
  blockDuration?: number;
  /**
   * Count in this process only, even on a shared database: for generous ceilings on hot paths (token, Resources),
   * where a shared store would add a write to every call. Each instance then allows `points` on its own.
   */
  local?: boolean;
}

export interface Limiter {
  /** Spends one point for key; throws HttpError 429 with Retry-After when none is left. */
  consume(key: string): Promise<void>;
  /** Forgets a key (e.g. after a successful sign-in). */
  reset(key: string): Promise<void>;
  /** Throws the same 429 as consume when key has no point left, without spending one: for limits that count failures only. */
  check(key: string): Promise<void>;
  /** Spends one point without ever refusing: the failure that a later `check` counts. */
  record(key: string): Promise<void>;
}

export interface RateLimits {
  limiter(policy: RateLimitPolicy): Limiter;
}

/**
 * Limits are stored where every instance sees them: PostgreSQL when the database is shared,
 * process memory on the embedded database (one process owns it).
 */
export function createRateLimits(db: Database): RateLimits {
  const shared = !isEmbedded(db);
  const cache = new Map<string, Limiter>();
  return {
    limiter(policy) {
      const existing = cache.get(policy.name);
      if (existing) return existing;
      const options: IRateLimiterOptions = {
        keyPrefix: policy.name,
        points: policy.points,
        duration: policy.duration,
        ...(policy.blockDuration ? { blockDuration: policy.blockDuration } : {}),
      };
      const store: RateLimiterAbstract = shared && !policy.local
        ? new RateLimiterPostgres({ ...options, storeClient: db, storeType: 'knex', tableName: 'rate_limits', tableCreated: true })
        : new RateLimiterMemory(options);
      const limiter: Limiter = {
        async consume(key) {
          try {
            await store.consume(key);
          } catch (rejection) {
            if (!(rejection instanceof RateLimiterRes)) throw rejection;
            throw tooManyRequests(rejection);
          }
        },
        async reset(key) {
          await store.delete(key);
        },
        async check(key) {
          const spent = await store.get(key);
          if (spent && spent.consumedPoints >= policy.points) throw tooManyRequests(spent);
        },
        async record(key) {
          await store.penalty(key, 1);
        },
      };
      cache.set(policy.name, limiter);
      return limiter;
    },
  };
}

function tooManyRequests(spent: RateLimiterRes): HttpError {
  const retryAfter = Math.max(1, Math.ceil(spent.msBeforeNext / 1000));
  return new HttpError(429, `Too many requests. Try again in ${retryAfter} seconds.`, { 'Retry-After': String(retryAfter) });
}

/** Middleware spending one point of `limiter` per request, keyed by `key(ctx)`. */
export const rateLimit = (limiter: Limiter, key: (ctx: Context) => string): Middleware => async (ctx, next) => {
  await limiter.consume(key(ctx));
  await next();
};

/** A "requests per minute" setting from the environment, or its default; a bad value stops start-up naming the variable. */
export function perMinuteSetting(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  return readSettings<{ perMinute: number }>(env, {
    perMinute: { env: name, schema: { type: 'integer', minimum: 1, maximum: 1_000_000 }, default: fallback, expected: 'must be requests per minute, an integer from 1 to 1000000' },
  }).perMinute;
}
