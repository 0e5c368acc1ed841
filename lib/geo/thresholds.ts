import type { Config } from '../config/types.js';
import type { Location } from './location.js';

/** The operator's AGE_THRESHOLDS per configuration, bound at start-up (Config belongs to the core settings). */
const thresholdsByConfig = new WeakMap<Config, ReadonlyMap<string, number>>();

/** Makes `thresholds` (validated region code → age) the ones ageThresholdFor uses with `config`. */
export function bindAgeThresholds(config: Config, thresholds: Record<string, number>): void {
  thresholdsByConfig.set(config, new Map(Object.entries(thresholds)));
}

/** The age a visitor at `location` must prove: the subdivision's threshold, else the country's, else AGE_THRESHOLD. */
export function ageThresholdFor(config: Config, location: Location): number {
  const thresholds = thresholdsByConfig.get(config);
  return (location.subdivision ? thresholds?.get(location.subdivision) : undefined)
    ?? thresholds?.get(location.country)
    ?? config.ageThreshold;
}
