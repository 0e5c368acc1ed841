import type { JWKS } from 'oidc-provider';
import type { GeoResolver } from '../geo/location.js';
import type { RateLimits } from '../http/rate-limit.js';
import type { PolicyServices } from '../policy/resolve.js';
import type { Database } from '../store/database.js';

/** What /v1/requirement and /v1/policies take, in their own terms (lib/app/runtime.ts satisfies them). */
export type RequirementServices = PolicyServices & {
  db: Database;
  /** where the visitor is, and the headers that answer depends on (Vary) */
  geo: GeoResolver;
  rateLimits: Pick<RateLimits, 'limiter'>;
  config: {
    /** the default age threshold, which /v1/policies states */
    readonly ageThreshold: number;
    /** the signed answer's issuer and keys (token.ts) */
    readonly issuer: string;
    readonly jwks: JWKS;
  };
};
