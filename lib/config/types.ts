import type { JWKS } from 'oidc-provider';
import type { Branding } from '../branding/settings.js';
import type { GeoSettings } from '../geo/settings.js';
import type { LimitPoints } from '../http/rate-limit.js';
import type { ClientCacheSettings } from '../websites/client-cache.js';
import type { PolicySettings } from '../policy/settings.js';
import type { RedisSettings } from '../http/shared-limits.js';
import type { MailSettings } from '../mail/mailer.js';
import type { StatisticsSettings } from '../statistics/settings.js';
import type { WebhookSettings } from '../webhooks/settings.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** Settings an operator gives as environment variables or as options to createAgeProvider (same names, camelCase). */
export interface Settings {
  port: number;
  host: string;
  issuer: string;
  databaseUrl?: string;
  dataDir: string;
  trustProxy: boolean;
  cookieKeys?: string[];
  jwks?: JWKS;
  /** base64 of 32 random bytes */
  sealingKey?: string;
  logLevel: LogLevel;
  /** one JSON line per request (method, route pattern, status, duration, surface, request id) at level info */
  accessLog: boolean;
  /** seconds a verification shared with a website stays valid */
  verificationTtl: number;
  /** seconds an age proof saved to a visitor account stays reusable */
  proofReuseTtl: number;
  /** default age threshold */
  ageThreshold: number;
  /** port of the operations listener (/metrics, /healthz, /readyz); unset: none */
  operationsPort?: number;
  /** interface of the operations listener; loopback unless told otherwise */
  operationsHost: string;
  /** seconds `serve` waits for in-flight requests on SIGTERM/SIGINT before exiting anyway */
  shutdownTimeout: number;
  /** how long `serve` keeps listening after SIGTERM (readyz 503, every response `Connection: close`) before it closes */
  shutdownDelayMs: number;
  /** PostgreSQL connections per process */
  dbPoolMax: number;
  /** milliseconds a request waits for a PostgreSQL connection (and for connecting) */
  dbAcquireTimeoutMs: number;
  /** milliseconds one PostgreSQL statement may run */
  dbStatementTimeoutMs: number;
  /** milliseconds a whole request may take before it is answered with 503 */
  requestTimeoutMs: number;
  /** seconds a verification is kept after it expired (audit), then deleted */
  verificationRetention: number;
  /** on PostgreSQL: allow generated secrets (DATA_DIR/secrets.json) because only this instance uses the database */
  singleInstance: boolean;
}

/** The secrets every instance must share; generated into DATA_DIR when not configured. */
export interface Secrets {
  cookieKeys: string[];
  jwks: JWKS;
  sealingKey: Buffer;
}

/** Everything configured, read and checked once at start-up (lib/app/config.ts): the core settings, then one field per section. */
export type Config = Omit<Settings, 'cookieKeys' | 'jwks' | 'sealingKey'> & Secrets & {
  branding: Branding;
  geo: GeoSettings;
  limits: LimitPoints;
  /** how long client lookups are remembered, and how the change feed that forgets them is checked */
  clientCache: ClientCacheSettings;
  /** the presets in force for every website */
  policies: PolicySettings;
  /** REDIS_URL: every limit's counters shared through Redis; undefined: as lib/http/limits.ts says (docs/configuration.md) */
  redis: RedisSettings | undefined;
  /** the mail server the service sends its own mail through (SMTP_URL), when configured */
  mail: MailSettings | undefined;
  webhooks: WebhookSettings;
  statistics: StatisticsSettings;
  /** each configured challenge's own settings (ChallengeModule.settings), handed to its configure */
  challenges: ReadonlyMap<string, unknown>;
};
