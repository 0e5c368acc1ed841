import type { Context } from 'koa';
import { normaliseLocation } from './codes.js';
import { knownLocation, type Location } from './location.js';

/**
 * The location a trusted proxy or CDN put in the request (e.g. `CF-IPCountry: US` and a region header `TX`),
 * or undefined when the country header is missing or unusable (`XX`, `T1`, a list, garbage).
 */
export function locationFromHeaders(
  ctx: Context,
  countryHeader: string,
  subdivisionHeader: string | undefined,
): Location | undefined {
  return knownLocation(
    normaliseLocation(ctx.get(countryHeader), subdivisionHeader ? ctx.get(subdivisionHeader) : undefined),
  );
}
