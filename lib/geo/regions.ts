import type { Location } from './location.js';

/**
 * Whether a website listing `regions` must verify a visitor at `location`: no regions means
 * everywhere; a country covers its subdivisions; a subdivision covers only itself. It fails closed: when we cannot
 * tell whether the visitor is inside a listed region (unknown country, or a listed subdivision of the visitor's
 * country but no subdivision known), verification is required, because a wrong "not required" breaks the law the
 * website listed the region for, while a wrong "required" only costs the visitor a check.
 */
export function isVerificationRequired(regions: readonly string[], location: Location): boolean {
  if (regions.length === 0 || location.country === 'ZZ') return true;
  return regions.some(
    (region) =>
      region === location.country ||
      region === location.subdivision ||
      (location.subdivision === null && region.startsWith(`${location.country}-`)),
  );
}
