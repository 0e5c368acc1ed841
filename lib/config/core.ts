import type { SettingsSection } from './settings.js';
import type { Settings } from './types.js';

/** The core settings as read: ISSUER defaults to the listening address, once HOST and PORT are known. */
type Raw = Omit<Settings, 'issuer'> & { issuer?: string };

const PORT = { type: 'integer', minimum: 0, maximum: 65535 } as const;
const MILLISECONDS = { type: 'integer', minimum: 100, maximum: 600000 } as const;

/** The service's own settings (docs/configuration.md "Core"); each option of createAgeProvider has the same name. */
export const coreSettings: SettingsSection<Settings, Raw> = {
  spec: {
    port: { env: 'PORT', schema: PORT, default: 3000 },
    host: { env: 'HOST', schema: { type: 'string', minLength: 1 }, default: '127.0.0.1' },
    issuer: {
      env: 'ISSUER',
      schema: { type: 'string', pattern: '^https?://[^/?#]+(/[^?#]*)?$' },
      optional: true,
      expected: 'must be an http(s) URL without query or fragment',
    },
    databaseUrl: {
      env: 'DATABASE_URL',
      schema: { type: 'string', pattern: '^postgres(ql)?://' },
      optional: true,
      expected: 'must be a postgres:// or postgresql:// URL',
    },
    dataDir: { env: 'DATA_DIR', schema: { type: 'string', minLength: 1 }, default: './.data' },
    trustProxy: { env: 'TRUST_PROXY', schema: { type: 'boolean' }, default: false },
    cookieKeys: {
      env: 'COOKIE_KEYS',
      list: true,
      optional: true,
      schema: { type: 'array', minItems: 1, items: { type: 'string', minLength: 32 } },
      expected: 'must be comma-separated keys of at least 32 characters',
    },
    jwks: {
      env: 'JWKS',
      json: true,
      optional: true,
      schema: {
        type: 'object',
        required: ['keys'],
        properties: { keys: { type: 'array', minItems: 1, items: { type: 'object', required: ['kty', 'd'] } } },
      },
    },
    sealingKey: {
      env: 'SEALING_KEY',
      schema: { type: 'string', pattern: '^[A-Za-z0-9+/_-]{43}=?$' },
      optional: true,
      expected: 'must be base64 of 32 bytes',
    },
    accessLog: { env: 'ACCESS_LOG', schema: { type: 'boolean' }, default: false },
    logLevel: {
      env: 'LOG_LEVEL',
      schema: { type: 'string', enum: ['debug', 'info', 'warn', 'error', 'silent'] },
      default: 'info',
    },
    verificationTtl: {
      env: 'VERIFICATION_TTL',
      schema: { type: 'integer', minimum: 60, maximum: 86400 * 30 },
      default: 3600,
    },
    proofReuseTtl: {
      env: 'PROOF_REUSE_TTL',
      schema: { type: 'integer', minimum: 0, maximum: 86400 * 365 * 5 },
      default: 365 * 86400,
    },
    ageThreshold: { env: 'AGE_THRESHOLD', schema: { type: 'integer', minimum: 13, maximum: 25 }, default: 18 },
    operationsPort: { env: 'OPERATIONS_PORT', schema: PORT, optional: true },
    operationsHost: { env: 'OPERATIONS_HOST', schema: { type: 'string', minLength: 1 }, default: '127.0.0.1' },
    shutdownTimeout: { env: 'SHUTDOWN_TIMEOUT', schema: { type: 'integer', minimum: 1, maximum: 600 }, default: 10 },
    shutdownDelayMs: {
      env: 'SHUTDOWN_DELAY_MS',
      schema: { type: 'integer', minimum: 0, maximum: 60000 },
      default: 2000,
    },
    dbPoolMax: { env: 'DB_POOL_MAX', schema: { type: 'integer', minimum: 1, maximum: 1000 }, default: 10 },
    dbAcquireTimeoutMs: { env: 'DB_ACQUIRE_TIMEOUT_MS', schema: MILLISECONDS, default: 5000 },
    dbStatementTimeoutMs: { env: 'DB_STATEMENT_TIMEOUT_MS', schema: MILLISECONDS, default: 10000 },
    requestTimeoutMs: { env: 'REQUEST_TIMEOUT_MS', schema: MILLISECONDS, default: 30000 },
    verificationRetention: {
      env: 'VERIFICATION_RETENTION',
      schema: { type: 'integer', minimum: 0, maximum: 86400 * 365 * 10 },
      default: 86400,
    },
    singleInstance: { env: 'SINGLE_INSTANCE', schema: { type: 'boolean' }, default: false },
  },
  finish: ({ issuer, ...settings }) => ({
    ...settings,
    issuer: (
      issuer ?? `http://${settings.host.includes(':') ? `[${settings.host}]` : settings.host}:${String(settings.port)}`
    ).replace(/\/$/, ''),
  }),
};
