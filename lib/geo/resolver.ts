import type { Context } from 'koa';
import type { Logger } from '../log.js';
import { locationFromHeaders } from './headers.js';
import { UNKNOWN_LOCATION, type GeoResolver, type Location } from './location.js';
import { openGeoDatabase } from './mmdb.js';
import type { GeoSettings } from './settings.js';
import { ageThresholds } from './thresholds.js';

/** What the geo sources are built from: their section, and the core settings they read. */
export interface GeoServices {
  config: { readonly geo: GeoSettings; readonly trustProxy: boolean; readonly ageThreshold: number };
  log: Logger;
}

/**
 * The operator's geo sources, in order: the trusted proxy's headers (only with TRUST_PROXY), then the MaxMind
 * database by client IP (ctx.ip, which honours X-Forwarded-For only with TRUST_PROXY), else `ZZ`,
 * and the per-region age thresholds (config.geo). Throws ConfigError when the MaxMind database cannot be opened.
 */
export function createGeoResolver({ config, log }: GeoServices): GeoResolver {
  const settings = config.geo;
  const { countryHeader, subdivisionHeader } = settings;
  const trustHeaders = countryHeader !== undefined && config.trustProxy;
  if (countryHeader && !trustHeaders)
    log.warn('GEO_COUNTRY_HEADER and GEO_SUBDIVISION_HEADER are ignored while TRUST_PROXY is off');
  const byIp = settings.database ? openGeoDatabase(settings.database) : undefined;

  const resolve = (ctx: Context): Location => {
    const fromHeaders = trustHeaders ? locationFromHeaders(ctx, countryHeader, subdivisionHeader) : undefined;
    if (fromHeaders?.subdivision) return fromHeaders;
    const fromDatabase = byIp?.(ctx.ip);
    if (!fromHeaders) return fromDatabase ?? UNKNOWN_LOCATION;
    // A proxy that sends only the country: the database may add the subdivision, never contradict the country.
    return fromDatabase?.country === fromHeaders.country ? fromDatabase : fromHeaders;
  };

  return {
    headers: trustHeaders ? [countryHeader, ...(subdivisionHeader ? [subdivisionHeader] : [])] : [],
    locate(ctx) {
      // Several steps of one request ask where the visitor is (challenge, threshold, record): one lookup answers them all.
      ctx.state.location ??= Promise.resolve(resolve(ctx));
      return ctx.state.location;
    },
    ageThresholdFor: ageThresholds(settings.ageThresholds, config.ageThreshold),
  };
}
