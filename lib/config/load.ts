import { Ajv } from 'ajv';
import { ENV_JSON, ENV_LIST, ENV_NAMES, settingsSchema } from './settings-schema.js';
import { resolveSecrets } from './secrets.js';
import type { Config, Settings } from './types.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const validate = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: false }).compile(settingsSchema);

function fromEnvironment(env: NodeJS.ProcessEnv): Partial<Record<keyof Settings, unknown>> {
  const raw: Partial<Record<keyof Settings, unknown>> = {};
  for (const [key, name] of Object.entries(ENV_NAMES) as [keyof Settings, string][]) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    if (ENV_JSON.has(key)) {
      try {
        raw[key] = JSON.parse(value);
      } catch {
        throw new ConfigError(`invalid configuration ${name}: not valid JSON`);
      }
    } else if (ENV_LIST.has(key)) {
      raw[key] = value.split(',').map((item) => item.trim()).filter(Boolean);
    } else {
      raw[key] = value;
    }
  }
  return raw;
}

function withDefaults(raw: Partial<Record<keyof Settings, unknown>>): Record<string, unknown> {
  const port = raw.port ?? 3000;
  const host = raw.host ?? '127.0.0.1';
  return {
    port,
    host,
    issuer: `http://${String(host).includes(':') ? `[${String(host)}]` : String(host)}:${String(port)}`,
    dataDir: './.data',
    trustProxy: false,
    logLevel: 'info',
    verificationTtl: 3600,
    proofReuseTtl: 365 * 86400,
    ageThreshold: 18,
    operationsHost: '127.0.0.1',
    shutdownTimeout: 10,
    dbPoolMax: 10,
    dbAcquireTimeoutMs: 5000,
    dbStatementTimeoutMs: 10000,
    requestTimeoutMs: 30000,
    verificationRetention: 86400,
    singleInstance: false,
    ...raw,
  };
}

/** Validates environment plus options (options win) and resolves the shared secrets. Throws ConfigError naming the bad key. */
export async function loadConfig(options: Partial<Settings> = {}, env: NodeJS.ProcessEnv = process.env): Promise<{ config: Config; warnings: string[] }> {
  const raw = withDefaults({ ...fromEnvironment(env), ...stripUndefined(options) });
  if (!validate(raw)) {
    const problems = (validate.errors ?? []).map((error) => {
      const key = (error.instancePath.split('/')[1] ?? (error.params as { additionalProperty?: string }).additionalProperty ?? '') as keyof Settings;
      return `${ENV_NAMES[key] ?? key} (${key}) ${error.message ?? 'is invalid'}`;
    });
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const settings = raw as unknown as Settings;
  settings.issuer = settings.issuer.replace(/\/$/, '');
  let secrets;
  try {
    secrets = await resolveSecrets(settings);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const { cookieKeys: _c, jwks: _j, sealingKey: _s, ...rest } = settings;
  return { config: { ...rest, ...secrets }, warnings: [] };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}
