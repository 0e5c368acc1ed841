import { Ajv } from 'ajv';
import { ConfigError } from '../../../config/load.js';
import { ASSURANCE_LEVELS, type AssuranceLevel } from '../../challenge.js';

/** One environment variable of a challenge's settings: its JSON Schema (strings are coerced) and its default. */
export interface EnvSetting {
  env: string;
  schema: Record<string, unknown>;
  default?: string | number | boolean;
  /** may be left unset (there is no default either) */
  optional?: boolean;
}

export type SettingsSpec<T> = { [K in keyof T]-?: EnvSetting };

const ajv = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: false });

/**
 * Reads and validates one challenge's settings from the environment. Every key of the spec without a default
 * is required unless optional; a missing or bad one throws a ConfigError naming the environment variable.
 */
export function readSettings<T>(env: NodeJS.ProcessEnv, spec: SettingsSpec<T>): T {
  const keys = Object.keys(spec) as (keyof T & string)[];
  const raw: Record<string, unknown> = {};
  for (const key of keys) {
    const value = env[spec[key].env];
    if (value !== undefined && value !== '') raw[key] = value;
    else if (spec[key].default !== undefined) raw[key] = spec[key].default;
  }
  const validate = ajv.compile({
    type: 'object',
    properties: Object.fromEntries(keys.map((key) => [key, spec[key].schema])),
    required: keys.filter((key) => spec[key].default === undefined && !spec[key].optional),
  });
  if (!validate(raw)) {
    const problems = (validate.errors ?? []).map((error) => {
      const key = (error.instancePath.split('/')[1] ?? (error.params as { missingProperty?: string }).missingProperty ?? '') as keyof T & string;
      return `${spec[key]?.env ?? key} ${error.message ?? 'is invalid'}`;
    });
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  return raw as T;
}

/** True when any of these variables is set: a challenge is configured as soon as one of its vendor keys is. */
export const anySet = (env: NodeJS.ProcessEnv, names: string[]): boolean => names.some((name) => (env[name] ?? '') !== '');

/** The settings every vendor challenge shares: whether it is free and the level it records (ARCHITECTURE §6.6). */
export interface ChallengeBasics {
  free: boolean;
  assuranceLevel: AssuranceLevel;
}

export const basicsSpec = (prefix: string, defaults: ChallengeBasics): SettingsSpec<ChallengeBasics> => ({
  free: { env: `${prefix}_FREE`, schema: { type: 'boolean' }, default: defaults.free },
  assuranceLevel: { env: `${prefix}_ASSURANCE_LEVEL`, schema: { type: 'string', enum: [...ASSURANCE_LEVELS] }, default: defaults.assuranceLevel },
});

/** Milliseconds one outbound call to a vendor may take (VENDOR_TIMEOUT_MS). */
export const timeoutSpec: EnvSetting = { env: 'VENDOR_TIMEOUT_MS', schema: { type: 'integer', minimum: 100, maximum: 60000 }, default: 10000 };
