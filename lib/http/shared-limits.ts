import { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  type IRateLimiterOptions,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { SettingsSection } from '../config/settings.js';
import type { Logger } from '../log.js';

/** REDIS_URL and its key prefix: the limits' shared counters, when the operator runs a Redis. */
export interface RedisSettings {
  url: string;
  keyPrefix: string;
}

export const redisSettings: SettingsSection<RedisSettings | undefined, RedisSettings> = {
  enabledBy: ['REDIS_URL'],
  spec: {
    url: {
      env: 'REDIS_URL',
      schema: { type: 'string', pattern: '^rediss?://' },
      expected: 'must be a redis:// or rediss:// URL',
    },
    keyPrefix: {
      env: 'REDIS_KEY_PREFIX',
      schema: { type: 'string', minLength: 1, maxLength: 100 },
      default: 'age-provider:',
    },
  },
};

/** How long a limit waits for Redis before counting in memory: a limit must never be what makes a request slow. */
const COMMAND_TIMEOUT_MS = 500;
/** How long start-up waits for the first connection before it serves anyway (counting in memory until Redis answers). */
const FIRST_CONNECTION_MS = 2000;

/** Counters shared by every instance through one Redis connection; where Redis does not answer, each instance's own. */
export interface SharedLimitStore {
  /** A limiter of these options counted in Redis, or in this instance's memory while Redis does not answer. */
  limiter(options: IRateLimiterOptions): RateLimiterAbstract;
  /** true while the limits count in memory because Redis did not answer (the breaker is open) */
  fallbackActive(): boolean;
  close(): Promise<void>;
}

/** How often a limit store that fell back to memory asks Redis whether it answers again. */
const PROBE_EVERY_MS = 5000;

/**
 * The breaker: once a command failed or timed out, every limit counts in memory without asking Redis (a Redis that
 * accepts and never answers would otherwise cost every rate-limited request the whole command timeout), until a
 * probe finds Redis answering again. Tells the log once when the limits stop being shared and once when they are
 * shared again, however many requests and reconnection attempts fall in between. While down it pings Redis: a
 * connection can stay open while its commands time out, and then no reconnection says that Redis is back.
 */
function outageReporter(
  log: Logger,
  client: Redis,
): { down(reason: string): void; up(): void; stop(): void; isDown(): boolean } {
  let probe: NodeJS.Timeout | undefined;
  const reporter = {
    isDown: () => probe !== undefined,
    down(reason: string) {
      if (probe) return;
      probe = setInterval(
        () =>
          void client.ping().then(
            () => reporter.up(),
            () => undefined,
          ),
        PROBE_EVERY_MS,
      ).unref();
      log.error(
        'Redis does not answer: rate limits count in each instance\'s memory until it does (docs/configuration.md "Rate limits")',
        { reason },
      );
    },
    up() {
      if (!probe) return;
      reporter.stop();
      log.info('Redis answers again: rate limits are shared by every instance again');
    },
    stop() {
      clearInterval(probe);
      probe = undefined;
    },
  };
  return reporter;
}

/**
 * Connects to REDIS_URL. ioredis (a well-kept client that rate-limiter-flexible supports natively, one Lua call per
 * point spent) is set to refuse rather than queue a command while disconnected and to give up on one after
 * COMMAND_TIMEOUT_MS: rate-limiter-flexible then asks the insurance limiter, an in-memory one of the same policy.
 */
export async function connectSharedLimitStore(settings: RedisSettings, log: Logger): Promise<SharedLimitStore> {
  const client = new Redis(settings.url, {
    enableOfflineQueue: false,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: FIRST_CONNECTION_MS,
    maxRetriesPerRequest: 0,
    // Requests served in the same tick share one write to Redis.
    enableAutoPipelining: true,
    lazyConnect: true,
  });
  const outage = outageReporter(log, client);
  client.on('error', (error: Error) => outage.down(error.message));
  client.on('close', () => outage.down('connection closed'));
  client.on('ready', () => outage.up());
  // Start-up goes on without Redis: a limit is never a reason for the service to be down.
  await client.connect().catch((error: unknown) => outage.down((error as Error).message));

  /** The in-memory limiter Redis's errors fall back to; using it is itself an outage, e.g. a command that timed out. */
  class Insurance extends RateLimiterMemory {
    override consume(...args: Parameters<RateLimiterMemory['consume']>): ReturnType<RateLimiterMemory['consume']> {
      outage.down('a command failed');
      return super.consume(...args);
    }
    override get(...args: Parameters<RateLimiterMemory['get']>): ReturnType<RateLimiterMemory['get']> {
      outage.down('a command failed');
      return super.get(...args);
    }
    override penalty(...args: Parameters<RateLimiterMemory['penalty']>): ReturnType<RateLimiterMemory['penalty']> {
      outage.down('a command failed');
      return super.penalty(...args);
    }
  }
  /** Redis's limiter while the breaker is closed; its insurance, asked directly, while it is open. */
  class Breaking extends RateLimiterRedis {
    constructor(
      options: IRateLimiterOptions,
      private readonly memory: Insurance,
    ) {
      super({
        ...options,
        keyPrefix: `${settings.keyPrefix}${options.keyPrefix ?? ''}`,
        storeClient: client,
        rejectIfRedisNotReady: true,
        insuranceLimiter: memory,
      });
    }
    override consume(...args: Parameters<RateLimiterRedis['consume']>): ReturnType<RateLimiterRedis['consume']> {
      return outage.isDown() ? this.memory.consume(...args) : super.consume(...args);
    }
    override get(...args: Parameters<RateLimiterRedis['get']>): ReturnType<RateLimiterRedis['get']> {
      return outage.isDown() ? this.memory.get(...args) : super.get(...args);
    }
    override penalty(...args: Parameters<RateLimiterRedis['penalty']>): ReturnType<RateLimiterRedis['penalty']> {
      return outage.isDown() ? this.memory.penalty(...args) : super.penalty(...args);
    }
    override delete(...args: Parameters<RateLimiterRedis['delete']>): ReturnType<RateLimiterRedis['delete']> {
      return outage.isDown() ? this.memory.delete(...args) : super.delete(...args);
    }
  }
  return {
    limiter: (options) => new Breaking(options, new Insurance(options)),
    fallbackActive: () => outage.isDown(),
    async close() {
      outage.stop();
      client.removeAllListeners('close');
      await client.quit().catch(() => client.disconnect());
    },
  };
}
