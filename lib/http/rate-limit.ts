import type { Middleware, Context } from 'koa';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
  type IRateLimiterOptions,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { EnvSetting, SettingsSection, SettingsSpec } from '../config/settings.js';
import { isEmbedded, type Database } from '../store/database.js';
import { HttpError } from './errors.js';
import { LIMITS, type LimitName, type LimitRow } from './limits.js';
import type { SharedLimitStore } from './shared-limits.js';

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
  /** The limit of that row of lib/http/limits.ts (one limiter per name and instance). */
  limiter(name: LimitName): Limiter;
  /** true while limits meant for Redis count in this instance's memory because Redis did not answer */
  fallbackActive(): boolean;
}

/** Points per window of every limit: the table's, or the operator's requests per minute where a row has a setting. */
export type LimitPoints = Readonly<Record<LimitName, number>>;

const ROWS = Object.entries(LIMITS) as Array<[LimitName, LimitRow]>;

const perMinute = (env: string, fallback: number): EnvSetting => ({
  env,
  schema: { type: 'integer', minimum: 1, maximum: 1_000_000 },
  default: fallback,
  expected: 'must be requests per minute, an integer from 1 to 1000000',
});

/** The rows an operator can change. */
type ConfigurableLimit = { [K in LimitName]: (typeof LIMITS)[K] extends { setting: string } ? K : never }[LimitName];

/** The rate-limit section of the configuration: one variable per configurable row of the table. */
export const limitSettings: SettingsSection<LimitPoints, Record<ConfigurableLimit, number>> = {
  spec: Object.fromEntries(
    ROWS.flatMap(([name, row]) => (row.setting ? [[name, perMinute(row.setting, row.points)]] : [])),
  ) as SettingsSpec<Record<ConfigurableLimit, number>>,
  finish: (configured) =>
    ({ ...Object.fromEntries(ROWS.map(([name, row]) => [name, row.points])), ...configured }) as LimitPoints,
};

/**
 * Every limit of the table, with the points configured (config.limits). With REDIS_URL every limit, whatever its
 * scope, is counted in Redis (`redis`), which every instance sees. Without it, shared counters live where every
 * instance sees them: PostgreSQL when the database is shared, process memory on the embedded database (one process
 * owns it); the others in each instance's memory. Every refusal is told to `refused` (the metrics count them).
 */
export function createRateLimits(
  db: Database,
  points: LimitPoints,
  redis?: SharedLimitStore,
  refused: (name: LimitName) => void = () => {},
): RateLimits {
  const shared = !isEmbedded(db);
  const cache = new Map<LimitName, Limiter>();
  return {
    fallbackActive: () => redis?.fallbackActive() ?? false,
    limiter(name) {
      const existing = cache.get(name);
      if (existing) return existing;
      const row: LimitRow = LIMITS[name];
      const policy = { points: points[name], duration: row.windowSeconds };
      const options: IRateLimiterOptions = { keyPrefix: name, ...policy };
      const store: RateLimiterAbstract = redis
        ? redis.limiter(options)
        : shared && row.scope === 'shared'
          ? new RateLimiterPostgres({
              ...options,
              storeClient: db,
              storeType: 'knex',
              tableName: 'rate_limits',
              tableCreated: true,
            })
          : new RateLimiterMemory(options);
      const limiter: Limiter = {
        async consume(key) {
          try {
            await store.consume(key);
          } catch (rejection) {
            if (!(rejection instanceof RateLimiterRes)) throw rejection;
            refused(name);
            throw tooManyRequests(rejection);
          }
        },
        async reset(key) {
          await store.delete(key);
        },
        async check(key) {
          const spent = await store.get(key);
          if (spent && spent.consumedPoints >= policy.points) {
            refused(name);
            throw tooManyRequests(spent);
          }
        },
        async record(key) {
          await store.penalty(key, 1);
        },
      };
      cache.set(name, limiter);
      return limiter;
    },
  };
}

function tooManyRequests(spent: RateLimiterRes): HttpError {
  const retryAfter = Math.max(1, Math.ceil(spent.msBeforeNext / 1000));
  return new HttpError(
    429,
    `Too many requests. Try again in ${retryAfter} seconds.`,
    { 'Retry-After': String(retryAfter) },
    'too_many_requests',
  );
}

/** Whether `error` is a limiter's refusal (consume or check found no point left), for callers that answer it their own way. */
export const isRateLimited = (error: unknown): boolean => error instanceof HttpError && error.status === 429;

/** Middleware spending one point of `limiter` per request, keyed by `key(ctx)`. */
export const rateLimit =
  (limiter: Limiter, key: (ctx: Context) => string): Middleware =>
  async (ctx, next) => {
    await limiter.consume(key(ctx));
    await next();
  };
