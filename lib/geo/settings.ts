import { Ajv, type JSONSchemaType } from 'ajv';
import { ConfigError } from '../config/load.js';
import { isRegionCode } from './codes.js';

/** The operator's geo settings, as options to createAgeProvider (`geo`) or environment variables. */
export interface GeoOptions {
  /** request header carrying the visitor's country, set by a trusted proxy or CDN (e.g. `CF-IPCountry`) */
  countryHeader?: string;
  /** request header carrying the visitor's subdivision, `TX` or `US-TX` (needs countryHeader) */
  subdivisionHeader?: string;
  /** path of a MaxMind GeoIP2/GeoLite2 City or Country database (.mmdb) */
  database?: string;
  /** age threshold per country (`JP`) or subdivision (`US-AL`), overriding AGE_THRESHOLD there */
  ageThresholds?: Record<string, number>;
}

export type GeoSettings = GeoOptions & { ageThresholds: Record<string, number> };

const ENV_NAMES: Record<keyof GeoOptions, string> = {
  countryHeader: 'GEO_COUNTRY_HEADER',
  subdivisionHeader: 'GEO_SUBDIVISION_HEADER',
  database: 'GEOIP_DATABASE',
  ageThresholds: 'AGE_THRESHOLDS',
};

/** An HTTP field name (RFC 9110 token). */
const HEADER_NAME = { type: 'string', pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$", maxLength: 100, nullable: true } as const;

const schema: JSONSchemaType<GeoOptions> = {
  type: 'object',
  additionalProperties: false,
  properties: {
    countryHeader: HEADER_NAME,
    subdivisionHeader: HEADER_NAME,
    database: { type: 'string', minLength: 1, nullable: true },
    ageThresholds: {
      type: 'object',
      nullable: true,
      required: [],
      propertyNames: { type: 'string', pattern: '^[A-Z]{2}(-[A-Z0-9]{1,3})?$' },
      additionalProperties: { type: 'integer', minimum: 13, maximum: 25 },
    },
  },
};
const validate = new Ajv({ allErrors: true }).compile(schema);

function fromEnvironment(env: NodeJS.ProcessEnv): GeoOptions {
  const raw: Record<string, unknown> = {};
  for (const [key, name] of Object.entries(ENV_NAMES) as [keyof GeoOptions, string][]) {
    const value = env[name];
    if (value === undefined || value.trim() === '') continue;
    if (key === 'ageThresholds') {
      try {
        raw[key] = JSON.parse(value);
      } catch {
        throw new ConfigError(`invalid configuration AGE_THRESHOLDS: not valid JSON`);
      }
    } else {
      raw[key] = value.trim();
    }
  }
  return raw as GeoOptions;
}

/** Geo settings from the environment and the `geo` option (options win), validated; throws ConfigError naming the variable. */
export function loadGeoSettings(env: NodeJS.ProcessEnv, options: GeoOptions = {}): GeoSettings {
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  const raw = { ...fromEnvironment(env), ...given };
  if (!validate(raw)) {
    const problems = (validate.errors ?? []).filter((error) => error.keyword !== 'propertyNames').map((error) => {
      const key = (error.instancePath.split('/')[1] ?? (error.params as { additionalProperty?: string }).additionalProperty ?? '') as keyof GeoOptions;
      const where = error.propertyName ?? error.instancePath.split('/').slice(2).join('/');
      return `${ENV_NAMES[key] ?? key}${where ? ` (${where})` : ''} ${error.message ?? 'is invalid'}`;
    });
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const thresholds = raw.ageThresholds ?? {};
  const unknown = Object.keys(thresholds).filter((code) => !isRegionCode(code));
  if (unknown.length > 0) throw new ConfigError(`invalid configuration AGE_THRESHOLDS: unknown region ${unknown.join(', ')}`);
  if (raw.subdivisionHeader && !raw.countryHeader) {
    throw new ConfigError('invalid configuration GEO_SUBDIVISION_HEADER: needs GEO_COUNTRY_HEADER as well');
  }
  return { ...raw, ageThresholds: thresholds };
}
