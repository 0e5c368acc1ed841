import type { Config } from '../config/types.js';
import type { Location } from './location.js';

/** The age a visitor at `location` must prove. */
export function ageThresholdFor(config: Config, _location: Location): number {
  return config.ageThreshold;
}
