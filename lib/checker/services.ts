import type { JWKS } from 'oidc-provider';
import type { GeoResolver } from '../geo/location.js';
import type { RateLimits } from '../http/rate-limit.js';
import type { PolicyServices } from '../policy/resolve.js';
import type { WebsiteServices } from '../websites/services.js';

/** What the checker script and its signed result take, in their own terms (lib/app/runtime.ts satisfies them). */
export type CheckerServices = WebsiteServices &
  PolicyServices & {
    geo: GeoResolver;
    rateLimits: Pick<RateLimits, 'limiter'>;
    config: {
      readonly issuer: string;
      /** the signed result's keys */
      readonly jwks: JWKS;
      /** the checker client's secret is derived from it */
      readonly sealingKey: Buffer;
    };
  };
