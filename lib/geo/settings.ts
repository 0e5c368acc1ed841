import { ConfigError, type SettingsSection } from '../config/settings.js';
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

/** An HTTP field name (RFC 9110 token). */
const HEADER_NAME = { type: 'string', pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$", maxLength: 100 } as const;

/** The geo section of the configuration (docs/geolocation.md). */
export const geoSettings: SettingsSection<GeoSettings, GeoOptions> = {
  spec: {
    countryHeader: { env: 'GEO_COUNTRY_HEADER', schema: HEADER_NAME, optional: true },
    subdivisionHeader: { env: 'GEO_SUBDIVISION_HEADER', schema: HEADER_NAME, optional: true },
    database: { env: 'GEOIP_DATABASE', schema: { type: 'string', minLength: 1 }, optional: true },
    ageThresholds: {
      env: 'AGE_THRESHOLDS',
      json: true,
      optional: true,
      schema: {
        type: 'object',
        propertyNames: { type: 'string', pattern: '^[A-Z]{2}(-[A-Z0-9]{1,3})?$' },
        additionalProperties: { type: 'integer', minimum: 13, maximum: 25 },
      },
    },
  },
  finish(raw) {
    const thresholds = raw.ageThresholds ?? {};
    const unknown = Object.keys(thresholds).filter((code) => !isRegionCode(code));
    if (unknown.length > 0) throw new ConfigError(`AGE_THRESHOLDS: unknown region ${unknown.join(', ')}`);
    if (raw.subdivisionHeader && !raw.countryHeader)
      throw new ConfigError('GEO_SUBDIVISION_HEADER: needs GEO_COUNTRY_HEADER as well');
    return { ...raw, ageThresholds: thresholds };
  },
};
