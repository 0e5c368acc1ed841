import type { RecordChange } from '../changes.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { PolicyOperator } from '../policy/resolve.js';
import type { Sealer } from '../security/sealing.js';
import type { Database } from '../store/database.js';
import type { ChallengeRegistry } from '../verification/challenge.js';
import type { ClientCache } from './client-cache.js';
import type { DomainProbe } from './domain-probe.js';

/**
 * What the websites' services take, in their own terms; lib/app/runtime.ts builds one object that satisfies this and
 * every other folder's (the way Ory Hydra composes its packages' registry interfaces in one driver).
 */
export interface WebsiteServices extends PolicyOperator {
  db: Database;
  clock: Clock;
  log: Logger;
  /** client secrets are kept sealed */
  sealer: Sealer;
  /** every change of a website, once: the audit trail and the webhooks hear of it (lib/changes.ts) */
  recordChange: RecordChange;
  /** forgotten on every announced client change; read by the clients' lookups */
  clients: Pick<ClientCache, 'get'>;
  /** the challenges a website is given when it names none */
  readonly challenges: Pick<ChallengeRegistry, 'freeChallenges'>;
  /** how a domain's verification is looked up from outside */
  domainProbe: DomainProbe;
}
