import type { Clock } from '../clock.js';
import type { RecordChange } from '../changes.js';
import type { Config } from './config.js';
import type { GeoResolver } from '../geo/location.js';
import type { FlowCounters } from '../http/metrics.js';
import type { RateLimits } from '../http/rate-limit.js';
import type { SurfaceBuilder as SurfaceBuilderOf, SurfaceDeps as SurfaceInput } from '../http/surface.js';
import type { Logger } from '../log.js';
import type { CookieKeys } from '../security/cookie-keys.js';
import type { Sealer } from '../security/sealing.js';
import type { Tally } from '../statistics/tally.js';
import type { Database } from '../store/database.js';
import type { ChallengeRegistry } from '../verification/challenge.js';
import type { ClientCache } from '../websites/client-cache.js';
import type { DomainProbe } from '../websites/domain-probe.js';

/**
 * The one object every folder's services are taken from, built once by createAgeProvider (lib/app/app.ts). Each folder
 * names what it takes in its own terms (WebsiteServices, ChallengeServices, OAuth2Services, …); this type satisfies
 * them all, which the compiler checks where the runtime is handed to each (the way Ory Hydra's driver registry
 * implements every package's registry interface). Nothing below lib/app/ imports it.
 */
export interface Runtime {
  config: Config;
  db: Database;
  sealer: Sealer;
  /** COOKIE_KEYS imported once: the signed cookies' keys (Koa's and oidc-provider's) and the form tokens' */
  cookieKeys: CookieKeys;
  clock: Clock;
  log: Logger;
  rateLimits: RateLimits;
  /** the configured challenges (built at start-up from this runtime: do not read it inside a module's configure) */
  readonly challenges: ChallengeRegistry;
  /** client lookups remembered per instance, forgotten on every announced client change */
  clients: ClientCache;
  geo: GeoResolver;
  /** flow events counted in memory for the statistics (started, refused, abandoned), rolled up every minute */
  tally: Tally;
  /** flows started and ended, counted in memory for the metrics (lib/http/metrics.ts) */
  flows: FlowCounters;
  /** every change a service makes, recorded once: the audit trail and the webhooks hear of it (lib/app/changes.ts) */
  recordChange: RecordChange;
  /** how website domains are verified from outside (DNS TXT, /.well-known file) */
  domainProbe: DomainProbe;
  /** Registers work for close(): timers to clear, connections to end. Runs in reverse order. */
  onClose(task: () => Promise<void> | void): void;
}

/** What the surfaces are built from, once, at start-up (lib/app/surfaces.ts): each builder takes its own services. */
export type SurfaceDeps = SurfaceInput<Runtime>;

/** How every surface is built: `<name>Surface(deps)` returns its middleware, in order (lib/app/surfaces.ts composes it). */
export type SurfaceBuilder = SurfaceBuilderOf<Runtime>;
