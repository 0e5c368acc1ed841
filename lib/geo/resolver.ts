import type { Runtime } from '../runtime.js';
import { locationFromHeaders } from './headers.js';
import { UNKNOWN_LOCATION, type GeoResolver } from './location.js';
import { openGeoDatabase } from './mmdb.js';
import { loadGeoSettings, type GeoOptions } from './settings.js';
import { bindAgeThresholds } from './thresholds.js';

/**
 * The operator's geo sources, in order: the trusted proxy's headers (only with TRUST_PROXY), then the MaxMind
 * database by client IP (ctx.ip, which honours X-Forwarded-For only with TRUST_PROXY), else `ZZ` (ARCHITECTURE §6.7).
 * Also binds the per-region age thresholds to the configuration. Throws ConfigError on bad settings.
 */
export function createGeoResolver(runtime: Omit<Runtime, 'geo'>, options?: GeoOptions): GeoResolver {
  const settings = loadGeoSettings(runtime.env, options);
  bindAgeThresholds(runtime.config, settings.ageThresholds);
  const { countryHeader, subdivisionHeader } = settings;
  const trustHeaders = countryHeader !== undefined && runtime.config.trustProxy;
  if (countryHeader && !trustHeaders) runtime.log.warn('GEO_COUNTRY_HEADER and GEO_SUBDIVISION_HEADER are ignored while TRUST_PROXY is off');
  const lookup = settings.database ? openGeoDatabase(settings.database) : undefined;

  return {
    headers: trustHeaders ? [countryHeader, ...(subdivisionHeader ? [subdivisionHeader] : [])] : [],
    async locate(ctx) {
      const fromHeaders = trustHeaders ? locationFromHeaders(ctx, countryHeader, subdivisionHeader) : undefined;
      if (fromHeaders?.subdivision) return fromHeaders;
      const fromDatabase = lookup?.(ctx.ip);
      if (!fromHeaders) return fromDatabase ?? UNKNOWN_LOCATION;
      // A proxy that sends only the country: the database may add the subdivision, never contradict the country.
      return fromDatabase?.country === fromHeaders.country ? fromDatabase : fromHeaders;
    },
  };
}
