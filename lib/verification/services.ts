import type { Clock } from '../clock.js';
import type { GeoResolver } from '../geo/location.js';
import type { RateLimits } from '../http/rate-limit.js';
import type { Logger } from '../log.js';
import type { Sealer } from '../security/sealing.js';
import type { Database } from '../store/database.js';

/**
 * What a challenge is configured with and what its steps and endpoints use: the challenge contract's services, in
 * its own terms (lib/app/runtime.ts satisfies them). A challenge's own settings come apart, checked
 * (ChallengeModule.settings).
 */
export interface ChallengeServices {
  db: Database;
  clock: Clock;
  log: Logger;
  /** a challenge's state and its tokens are sealed */
  sealer: Sealer;
  /** a challenge's own attempt limits */
  rateLimits: Pick<RateLimits, 'limiter'>;
  /** where the visitor is, for a check that depends on it */
  geo: Pick<GeoResolver, 'locate'>;
  config: {
    /** the service's URL, which a challenge's callbacks and wallet requests name */
    readonly issuer: string;
    /** each configured challenge's own settings, by name */
    readonly challenges: ReadonlyMap<string, unknown>;
  };
  /** what a challenge opens (a refresh timer, a key file) is released on close */
  onClose(task: () => Promise<void> | void): void;
}
