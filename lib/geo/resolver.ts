import type { Runtime } from '../runtime.js';
import { UNKNOWN_LOCATION, type GeoResolver } from './location.js';

/** The operator's geo source; with none configured every visitor is `ZZ` with no subdivision (ARCHITECTURE §6.7). */
export function createGeoResolver(_runtime: Omit<Runtime, 'geo'>): GeoResolver {
  return { locate: async () => UNKNOWN_LOCATION };
}
