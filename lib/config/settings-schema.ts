import type { JSONSchemaType } from 'ajv';
import type { Settings } from './types.js';

/** Environment variable for each setting; the option name is the key. */
export const ENV_NAMES: Record<keyof Settings, string> = {
  port: 'PORT',
  host: 'HOST',
  issuer: 'ISSUER',
  databaseUrl: 'DATABASE_URL',
  dataDir: 'DATA_DIR',
  trustProxy: 'TRUST_PROXY',
  cookieKeys: 'COOKIE_KEYS',
  jwks: 'JWKS',
  sealingKey: 'SEALING_KEY',
  logLevel: 'LOG_LEVEL',
  verificationTtl: 'VERIFICATION_TTL',
  proofReuseTtl: 'PROOF_REUSE_TTL',
  ageThreshold: 'AGE_THRESHOLD',
  operationsPort: 'OPERATIONS_PORT',
  operationsHost: 'OPERATIONS_HOST',
  shutdownTimeout: 'SHUTDOWN_TIMEOUT',
  dbPoolMax: 'DB_POOL_MAX',
  dbAcquireTimeoutMs: 'DB_ACQUIRE_TIMEOUT_MS',
  dbStatementTimeoutMs: 'DB_STATEMENT_TIMEOUT_MS',
  requestTimeoutMs: 'REQUEST_TIMEOUT_MS',
  verificationRetention: 'VERIFICATION_RETENTION',
  singleInstance: 'SINGLE_INSTANCE',
};

/** Settings that arrive from the environment as JSON or as comma-separated lists. */
export const ENV_JSON = new Set<keyof Settings>(['jwks']);
export const ENV_LIST = new Set<keyof Settings>(['cookieKeys']);

export const settingsSchema: JSONSchemaType<Settings> = {
  type: 'object',
  additionalProperties: false,
  required: ['port', 'host', 'issuer', 'dataDir', 'trustProxy', 'logLevel', 'verificationTtl', 'proofReuseTtl', 'ageThreshold',
    'operationsHost', 'shutdownTimeout', 'dbPoolMax', 'dbAcquireTimeoutMs', 'dbStatementTimeoutMs', 'requestTimeoutMs',
    'verificationRetention', 'singleInstance'],
  properties: {
    port: { type: 'integer', minimum: 0, maximum: 65535 },
    host: { type: 'string', minLength: 1 },
    issuer: { type: 'string', pattern: '^https?://[^/?#]+(/[^?#]*)?$' },
    databaseUrl: { type: 'string', nullable: true, pattern: '^postgres(ql)?://' },
    dataDir: { type: 'string', minLength: 1 },
    trustProxy: { type: 'boolean' },
    cookieKeys: { type: 'array', nullable: true, minItems: 1, items: { type: 'string', minLength: 32 } },
    jwks: {
      type: 'object',
      nullable: true,
      required: ['keys'],
      properties: { keys: { type: 'array', minItems: 1, items: { type: 'object', required: ['kty', 'd'] } } },
    } as never,
    sealingKey: { type: 'string', nullable: true, pattern: '^[A-Za-z0-9+/_-]{43}=?$' },
    logLevel: { type: 'string', enum: ['debug', 'info', 'warn', 'error', 'silent'] },
    verificationTtl: { type: 'integer', minimum: 60, maximum: 86400 * 30 },
    proofReuseTtl: { type: 'integer', minimum: 0, maximum: 86400 * 365 * 5 },
    ageThreshold: { type: 'integer', minimum: 13, maximum: 25 },
    operationsPort: { type: 'integer', nullable: true, minimum: 0, maximum: 65535 },
    operationsHost: { type: 'string', minLength: 1 },
    shutdownTimeout: { type: 'integer', minimum: 1, maximum: 600 },
    dbPoolMax: { type: 'integer', minimum: 1, maximum: 1000 },
    dbAcquireTimeoutMs: { type: 'integer', minimum: 100, maximum: 600000 },
    dbStatementTimeoutMs: { type: 'integer', minimum: 100, maximum: 600000 },
    requestTimeoutMs: { type: 'integer', minimum: 100, maximum: 600000 },
    verificationRetention: { type: 'integer', minimum: 0, maximum: 86400 * 365 * 10 },
    singleInstance: { type: 'boolean' },
  },
};
