import type { JWKS } from 'oidc-provider';
import type { CheckerServices } from '../checker/services.js';
import type { FlowCounters } from '../http/metrics.js';
import type { RateLimits } from '../http/rate-limit.js';
import type { CookieKeys } from '../security/cookie-keys.js';
import type { Tally } from '../statistics/tally.js';
import type { ChallengeRegistry } from '../verification/challenge.js';
import type { ChallengeServices } from '../verification/services.js';

/** What OAuth2 and the interaction pages take, in their own terms (lib/app/runtime.ts satisfies them). */
export type OAuth2Services = CheckerServices &
  ChallengeServices & {
    readonly challenges: ChallengeRegistry;
    rateLimits: RateLimits;
    /** the signed cookies' keys (oidc-provider's and the form tokens') */
    cookieKeys: CookieKeys;
    /** flow events counted for the statistics */
    tally: Pick<Tally, 'count'>;
    /** flows started and ended, counted for the metrics */
    flows: FlowCounters;
    config: {
      readonly issuer: string;
      readonly jwks: JWKS;
      /** seconds a verification shared with a website stays valid */
      readonly verificationTtl: number;
      /** seconds an age proof saved to a visitor account stays reusable */
      readonly proofReuseTtl: number;
    };
  };
