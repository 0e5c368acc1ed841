import { Ajv, type ErrorObject } from 'ajv';
import { ConfigError } from './load.js';

/** One setting read from an environment variable: its JSON Schema (plain strings are coerced) and its default. */
export interface EnvSetting {
  env: string;
  schema: Record<string, unknown>;
  default?: unknown;
  /** may be left unset (there is no default either) */
  optional?: boolean;
  /** the variable holds JSON (an object or a list), parsed and then validated without type coercion */
  json?: boolean;
  /** what the value must be, said instead of the validator's own message, e.g. "must be an https URL" */
  expected?: string;
}

export type SettingsSpec<T> = { [K in keyof T]-?: EnvSetting };

export interface ReadOptions<T> {
  /** values given in code (options to createAgeProvider); they win over the environment */
  given?: Partial<T>;
  /** keywords checked across settings, over the spec's keys, e.g. `dependencies` */
  relations?: Record<string, unknown>;
}

const coercing = new Ajv({ allErrors: true, coerceTypes: true });
const strict = new Ajv({ allErrors: true });

/** True when any of these variables is set: a feature is configured as soon as one of its keys is. */
export const anySet = (env: NodeJS.ProcessEnv, names: readonly string[]): boolean => names.some((name) => (env[name]?.trim() ?? '') !== '');

/** Milliseconds one outbound call (a vendor's API, an SMTP server) may take: VENDOR_TIMEOUT_MS. */
export const outboundTimeoutSetting: EnvSetting = { env: 'VENDOR_TIMEOUT_MS', schema: { type: 'integer', minimum: 100, maximum: 60000 }, default: 10000 };

/**
 * Reads and validates a feature's settings from the environment (values given in code win). Every key without a
 * default is required unless optional; a missing or bad one throws a ConfigError naming the environment variable.
 */
export function readSettings<T>(env: NodeJS.ProcessEnv, spec: SettingsSpec<T>, options: ReadOptions<T> = {}): T {
  const keys = Object.keys(spec) as (keyof T & string)[];
  const raw: Record<string, unknown> = {};
  for (const key of keys) {
    const setting = spec[key];
    const value = env[setting.env]?.trim();
    if (value !== undefined && value !== '') raw[key] = setting.json ? parseJson(setting.env, value) : value;
    else if (setting.default !== undefined) raw[key] = setting.default;
  }
  for (const [key, value] of Object.entries(options.given ?? {})) {
    if (value !== undefined && key in spec) raw[key] = value;
  }
  // Plain variables are text, coerced to their schema's type; JSON values already carry their types and are not coerced.
  const coerced = keys.filter((key) => !spec[key].json);
  const exact = keys.filter((key) => spec[key].json);
  const checks = [
    coercing.compile({
      type: 'object',
      properties: Object.fromEntries(coerced.map((key) => [key, spec[key].schema])),
      required: keys.filter((key) => spec[key].default === undefined && !spec[key].optional),
      ...options.relations,
    }),
    strict.compile({ type: 'object', properties: Object.fromEntries(exact.map((key) => [key, spec[key].schema])) }),
  ];
  const errors = checks.flatMap((validate) => (validate(raw) ? [] : validate.errors ?? []));
  if (errors.length > 0) {
    const envOf = (key: string | undefined): string => spec[key as keyof T & string]?.env ?? String(key);
    // A bad property name also fails `propertyNames` itself: the pattern error beside it already says which.
    const problems = errors.filter((error) => error.keyword !== 'propertyNames').map((error) => describe(error, envOf, spec));
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  return raw as T;
}

function parseJson(name: string, value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw new ConfigError(`invalid configuration ${name}: not valid JSON`);
  }
}

function describe<T>(error: ErrorObject, envOf: (key: string | undefined) => string, spec: SettingsSpec<T>): string {
  const params = error.params as { missingProperty?: string; property?: string };
  if (error.keyword === 'required') return `${envOf(params.missingProperty)} is required`;
  if (error.keyword === 'dependencies') return `${envOf(params.missingProperty)} is required with ${envOf(params.property)}`;
  const [key, ...inner] = error.instancePath.split('/').slice(1);
  // Inside a JSON value: say where (the entry's key or path).
  const where = error.propertyName ?? inner.join('/');
  const expected = spec[key as keyof T & string]?.expected;
  return `${envOf(key)}${where ? ` (${where})` : ''} ${expected ?? error.message ?? 'is invalid'}`;
}
