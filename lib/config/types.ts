import type { JWKS } from 'oidc-provider';

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
