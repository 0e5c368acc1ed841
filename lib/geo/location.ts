import type { Context } from 'koa';

/** Where the visitor is: ISO 3166-1 alpha-2 (`ZZ` when unknown) and ISO 3166-2 subdivision or null. */
export interface Location {
  country: string;
  subdivision: string | null;
}

declare module 'koa' {
  interface DefaultState {
    /** where this request's visitor is, looked up once (GeoResolver.locate) */
    location?: Promise<Location>;
  }
}

export const UNKNOWN_LOCATION: Location = { country: 'ZZ', subdivision: null };

/** A location whose country is known, else undefined (for sources that defer to the next one). */
export const knownLocation = (location: Location): Location | undefined =>
  location.country === UNKNOWN_LOCATION.country ? undefined : location;

/** Resolves a request's location; built once at start-up from the operator's geo settings. */
export interface GeoResolver {
  /** Looked up once per request: every later call for the same request gets the same answer. */
  locate(ctx: Context): Promise<Location>;
  /** The age a visitor at `location` must prove: AGE_THRESHOLDS for the subdivision, else the country, else AGE_THRESHOLD. */
  ageThresholdFor(location: Location): number;
  /** Request headers a location depends on (the trusted proxy's geo headers), for `Vary` on cacheable answers. */
  readonly headers: readonly string[];
}
