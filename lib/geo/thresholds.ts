import type { Location } from './location.js';

/**
 * The age a visitor at a location must prove, from the operator's AGE_THRESHOLDS (validated region code → age):
 * the subdivision's threshold, else the country's, else `fallback` (AGE_THRESHOLD).
 */
export function ageThresholds(thresholds: Record<string, number>, fallback: number): (location: Location) => number {
  const byRegion = new Map(Object.entries(thresholds));
  return (location) =>
    (location.subdivision ? byRegion.get(location.subdivision) : undefined) ??
    byRegion.get(location.country) ??
    fallback;
}
