import type { Context } from 'koa';

/** Where the visitor is: ISO 3166-1 alpha-2 (`ZZ` when unknown) and ISO 3166-2 subdivision or null. */
export interface Location {
  country: string;
  subdivision: string | null;
}

export const UNKNOWN_LOCATION: Location = { country: 'ZZ', subdivision: null };

/** Resolves a request's location; built once at start-up from the operator's geo settings. */
export interface GeoResolver {
  locate(ctx: Context): Promise<Location>;
  /** Request headers a location depends on (the trusted proxy's geo headers), for `Vary` on cacheable answers. */
  readonly headers: readonly string[];
}
