import { Ajv, type ErrorObject } from 'ajv';

/** Start-up refused: every problem found, each naming its environment variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly problems: readonly string[];
  constructor(problems: string | readonly string[]) {
    const list = typeof problems === 'string' ? [problems] : problems;
    super(`invalid configuration: ${list.join('; ')}`);
    this.problems = list;
  }
}

/** One setting read from an environment variable: its JSON Schema (plain strings are coerced) and its default. */
export interface EnvSetting {
  env: string;
  schema: Record<string, unknown>;
  default?: unknown;
  /** may be left unset (there is no default either) */
  optional?: boolean;
  /** the variable holds JSON (an object or a list), parsed and then validated without type coercion */
  json?: boolean;
  /** the variable holds a comma-separated list, split and then validated without type coercion */
  list?: boolean;
  /** what the value must be, said instead of the validator's own message, e.g. "must be an https URL" */
  expected?: string;
}

export type SettingsSpec<T> = { [K in keyof T]-?: EnvSetting };

/**
 * One section of the configuration: a feature's settings, declared beside its code, collected in
 * lib/app/sections.ts and read with every other section once, at start-up (loadConfig).
 */
export interface SettingsSection<T, R = T> {
  /** its variables, by key */
  spec: SettingsSpec<R>;
  /** keywords checked across the spec's keys, e.g. `dependencies` */
  relations?: Record<string, unknown>;
  /** a feature that is off unless the operator sets one of these variables: read as undefined until then */
  enabledBy?: readonly string[];
  /** What a schema cannot say (files read, values derived, settings checked together); throws ConfigError naming the variable. */
  finish?(raw: R): T;
}

/** The environment variables a section reads. */
export const variablesOf = (section: SettingsSection<unknown, unknown>): string[] =>
  Object.values<EnvSetting>(section.spec as Record<string, EnvSetting>).map((setting) => setting.env);

const coercing = new Ajv({ allErrors: true, coerceTypes: true });
const strict = new Ajv({ allErrors: true });

/** True when any of these variables is set: a feature is configured as soon as one of its keys is. */
const anySet = (env: NodeJS.ProcessEnv, names: readonly string[]): boolean =>
  names.some((name) => (env[name]?.trim() ?? '') !== '');

/** Milliseconds one outbound call (a vendor's API, an SMTP server) may take: VENDOR_TIMEOUT_MS. */
export const outboundTimeoutSetting: EnvSetting = {
  env: 'VENDOR_TIMEOUT_MS',
  schema: { type: 'integer', minimum: 100, maximum: 60000 },
  default: 10000,
};

/**
 * Reads and validates one section from the environment (values given in code win). Every key without a default is
 * required unless optional; every missing or bad one is reported in one ConfigError naming its environment variable.
 */
export function readSection<T, R>(section: SettingsSection<T, R>, env: NodeJS.ProcessEnv, given: Partial<R> = {}): T {
  const { spec } = section;
  if (section.enabledBy && !anySet(env, section.enabledBy)) return undefined as T;
  const keys = Object.keys(spec) as (keyof R & string)[];
  const raw: Record<string, unknown> = {};
  const unparsed = new Set<string>();
  for (const key of keys) {
    const setting = spec[key];
    const value = env[setting.env]?.trim();
    if (value !== undefined && value !== '') {
      const parsed = parse(setting, value);
      if (parsed.ok) raw[key] = parsed.value;
      else unparsed.add(key);
    } else if (setting.default !== undefined) raw[key] = setting.default;
  }
  for (const [key, value] of Object.entries(given)) {
    if (value !== undefined && key in spec) raw[key] = value;
  }
  // Plain variables are text, coerced to their schema's type; JSON values and lists already carry their types.
  const exactly = (key: keyof R & string): boolean => spec[key].json === true || spec[key].list === true;
  const checks = [
    coercing.compile({
      type: 'object',
      properties: Object.fromEntries(keys.filter((key) => !exactly(key)).map((key) => [key, spec[key].schema])),
      required: keys.filter((key) => spec[key].default === undefined && !spec[key].optional && !unparsed.has(key)),
      ...section.relations,
    }),
    strict.compile({
      type: 'object',
      properties: Object.fromEntries(keys.filter(exactly).map((key) => [key, spec[key].schema])),
    }),
  ];
  const errors = checks.flatMap((validate) => (validate(raw) ? [] : (validate.errors ?? [])));
  const envOf = (key: string | undefined): string => spec[key as keyof R & string]?.env ?? String(key);
  const problems = [
    ...[...unparsed].map((key) => `${spec[key as keyof R & string].env}: not valid JSON`),
    // A bad property name also fails `propertyNames` itself: the pattern error beside it already says which.
    ...errors.filter((error) => error.keyword !== 'propertyNames').map((error) => describe(error, envOf, spec)),
  ];
  if (problems.length > 0) throw new ConfigError(problems);
  return section.finish ? section.finish(raw as R) : (raw as T);
}

function parse(setting: EnvSetting, value: string): { ok: true; value: unknown } | { ok: false } {
  if (setting.list)
    return {
      ok: true,
      value: value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    };
  if (!setting.json) return { ok: true, value };
  try {
    return { ok: true, value: JSON.parse(value) };
  } catch {
    return { ok: false };
  }
}

function describe<R>(error: ErrorObject, envOf: (key: string | undefined) => string, spec: SettingsSpec<R>): string {
  const params = error.params as { missingProperty?: string; property?: string };
  // A missing variable names itself; a property missing inside a JSON value is said below, under its variable's name.
  if (error.keyword === 'required' && error.instancePath === '') return `${envOf(params.missingProperty)} is required`;
  if (error.keyword === 'dependencies')
    return `${envOf(params.missingProperty)} is required with ${envOf(params.property)}`;
  const [key, ...inner] = error.instancePath.split('/').slice(1);
  // Inside a JSON value: say where (the entry's key or path).
  const where = error.propertyName ?? inner.join('/');
  const expected = spec[key as keyof R & string]?.expected;
  return `${envOf(key)}${where ? ` (${where})` : ''} ${expected ?? error.message ?? 'is invalid'}`;
}
