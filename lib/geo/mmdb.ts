import { readFileSync } from 'node:fs';
import { Reader, type CityResponse } from 'maxmind';
import { ConfigError } from '../config/settings.js';
import { normaliseLocation } from './codes.js';
import { knownLocation, type Location } from './location.js';

export type IpLookup = (ip: string) => Location | undefined;

/** An IPv4 address as Node reports it on a dual-stack socket (`::ffff:192.0.2.1`), unwrapped for the IPv4 tree. */
const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * Opens a MaxMind GeoIP2/GeoLite2 City or Country database, read into memory once at start-up (a few MB for
 * Country, ~70 MB for City). A missing or unreadable file stops start-up with a ConfigError naming GEOIP_DATABASE.
 */
export function openGeoDatabase(path: string): IpLookup {
  let reader: Reader<CityResponse>;
  try {
    reader = new Reader<CityResponse>(readFileSync(path));
  } catch (error) {
    throw new ConfigError(`GEOIP_DATABASE: cannot open ${path} as a MaxMind database (${(error as Error).message})`);
  }
  return (ip) => {
    let record: CityResponse | null;
    try {
      record = reader.get(ip.replace(IPV4_MAPPED, '$1'));
    } catch {
      return undefined; // not an IP address
    }
    if (!record?.country) return undefined;
    // subdivisions are ordered from largest to smallest; the first is the ISO 3166-2 level we report
    return knownLocation(normaliseLocation(record.country.iso_code, record.subdivisions?.[0]?.iso_code));
  };
}
