import { COUNTRY_CODES, US_SUBDIVISION_CODES } from './region-codes.js';
import { UNKNOWN_LOCATION, type Location } from './location.js';

/** Kosovo's user-assigned code: not in ISO 3166-1, yet MaxMind and CDNs report it, so a location may carry it. */
const LOCATABLE_COUNTRIES = new Set<string>([...COUNTRY_CODES, 'XK']);
const US_SUBDIVISIONS = new Set<string>(US_SUBDIVISION_CODES);
/** ISO 3166-2: the country, a hyphen, then one to three letters or digits. */
const SUBDIVISION_SHAPE = /^([A-Z]{2})-([A-Z0-9]{1,3})$/;

/** An ISO 3166-1 alpha-2 code from untrusted text (any case, surrounding blanks), or null for anything else. */
export function normaliseCountry(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const code = value.trim().toUpperCase();
  return LOCATABLE_COUNTRIES.has(code) ? code : null;
}

/**
 * The ISO 3166-2 code of a subdivision of `country`, given as `TX` or `US-TX`, or null when it is malformed,
 * belongs to another country, or (for the US, whose list we know) does not exist.
 */
function normaliseSubdivision(country: string, value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const raw = value.trim().toUpperCase();
  const code = raw.includes('-') ? raw : `${country}-${raw}`;
  const match = SUBDIVISION_SHAPE.exec(code);
  if (!match || match[1] !== country) return null;
  if (country === 'US' && !US_SUBDIVISIONS.has(code)) return null;
  return code;
}

/** A location from untrusted country and subdivision values; an unusable country makes the whole location unknown. */
export function normaliseLocation(country: unknown, subdivision: unknown): Location {
  const code = normaliseCountry(country);
  if (!code) return UNKNOWN_LOCATION;
  return { country: code, subdivision: normaliseSubdivision(code, subdivision) };
}

/** Why a test location is refused, in the words each surface shows. */
export type TestLocationProblem = 'country' | 'subdivision';

/**
 * The one rule for a location a TEST caller names (the sandbox page, the authorization's test_country and
 * test_subdivision, /v1/requirement's): the country must be a known ISO 3166-1 code, or `ZZ` to simulate a visitor
 * nobody could locate, and a subdivision, if given (`TX` or `US-TX`), must be an ISO 3166-2 code of that country (an
 * existing one for the US).
 */
export function testLocation(country: unknown, subdivision: unknown): Location | TestLocationProblem {
  const unknown = typeof country === 'string' && country.trim().toUpperCase() === UNKNOWN_LOCATION.country;
  const code = unknown ? UNKNOWN_LOCATION.country : normaliseCountry(country);
  if (!code) return 'country';
  const blank =
    subdivision === undefined || subdivision === null || (typeof subdivision === 'string' && subdivision.trim() === '');
  if (blank) return { country: code, subdivision: null };
  const subdivisionCode = normaliseSubdivision(code, subdivision);
  return subdivisionCode ? { country: code, subdivision: subdivisionCode } : 'subdivision';
}

/** Whether `code` is a country or subdivision code an operator may configure (same rules as a website's regions, plus other countries' subdivisions). */
export function isRegionCode(code: string): boolean {
  if (LOCATABLE_COUNTRIES.has(code)) return true;
  const match = SUBDIVISION_SHAPE.exec(code);
  return match !== null && normaliseSubdivision(match[1]!, code) === code;
}
