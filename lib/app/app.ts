import Koa from 'koa';
import { systemClock, type Clock } from '../clock.js';
import { recordChange } from './changes.js';
import { loadConfig, type Config } from './config.js';
import type { Settings } from '../config/types.js';
import { requestEnvelope } from '../http/envelope.js';
import { healthRoutes, type Readiness } from '../http/health.js';
import { pinOriginToIssuer, warnAboutUntrustedProxy } from '../http/issuer-origin.js';
import { createMetrics } from '../http/metrics.js';
import { operationsApp } from '../http/operations.js';
import { createRateLimits } from '../http/rate-limit.js';
import { connectSharedLimitStore } from '../http/shared-limits.js';
import { createGeoResolver } from '../geo/resolver.js';
import type { GeoOptions } from '../geo/settings.js';
import type { ChallengeRegistry } from '../verification/challenge.js';
import { buildRegistry } from '../verification/registry.js';
import type { TrustedListReport } from '../verification/challenges/eu-av/trusted-list-source.js';
import { packageVersion } from '../paths.js';
import { createClientCache } from '../websites/client-cache.js';
import { publicDomainProbe, type DomainProbe } from '../websites/domain-probe.js';
import { showBrand } from '../branding/assets.js';
import type { BrandingOptions } from '../branding/index.js';
import { createLogger, type Logger } from '../log.js';
import { collapseRepeats, type RepeatLog } from '../log-repeats.js';
import type { Runtime } from './runtime.js';
import { CookieKeys } from '../security/cookie-keys.js';
import { createSealer } from '../security/sealing.js';
import { isEmbedded, openConfiguredDatabase, poolState, watchFailures, type Database } from '../store/database.js';
import { migrate } from '../store/migrate.js';
import type { OidcAdapterFactory } from '../store/oidc-payloads.js';
import { scheduleRetention } from '../store/retention.js';
import { mountSurfaces } from './surfaces.js';
import { scheduleWebhookDelivery } from '../webhooks/delivery.js';
import { webhookMetrics } from '../webhooks/metrics.js';
import { scheduleOutboxMaintenance } from '../webhooks/maintenance.js';
import { createMailer } from '../mail/mailer.js';
import { rollUpStatistics, scheduleStatistics } from '../statistics/schedule.js';
import { Tally } from '../statistics/tally.js';
import { createProvider } from '../oauth2/provider.js';
import type Provider from 'oidc-provider';

export interface AgeProviderOptions extends Partial<Settings> {
  /** Environment to read settings from (default process.env); options win over it. */
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  logger?: Logger;
  /** An open, migrated database to use instead of opening one (it is not closed by close()). */
  db?: Database;
  /** Geo sources and per-region age thresholds (else GEO_COUNTRY_HEADER, GEO_SUBDIVISION_HEADER, GEOIP_DATABASE, AGE_THRESHOLDS). */
  geo?: GeoOptions;
  /** The operator's name, logo, colour and links on every page (else BRAND_NAME, BRAND_LOGO, BRAND_COLOR, …). */
  branding?: BrandingOptions;
  /** How website domains are looked up for verification (default: public DNS and https, 5 s each). */
  domainProbe?: DomainProbe;
}

/** Each DNS query or file fetch of a domain verification. */
const DOMAIN_PROBE_TIMEOUT_MS = 5000;

export interface AgeProvider {
  /** The Koa app serving every surface; mount it or call app.callback(). */
  app: Koa;
  db: Database;
  config: Config;
  runtime: Runtime;
  /** The oidc-provider instance behind the OAuth2 surface. */
  provider: Provider;
  /** /metrics, /healthz and /readyz for the operations listener (OPERATIONS_PORT), apart from the public port. */
  operations: Koa;
  /** The server is shutting down: /readyz answers 503 from now on so load balancers stop sending. */
  drain(): void;
  /** Stops timers and closes the database the provider opened. */
  close(): Promise<void>;
}

/**
 * Builds the whole service: configuration, storage (migrated), and the Koa app with every surface mounted.
 * `oidcAdapter` is the storage oidc-provider runs on, plugged in by the caller: `knexAdapter` from adapters/knex.ts
 * (docs/architecture.md "Storage").
 */
export async function createAgeProvider(
  options: AgeProviderOptions,
  oidcAdapter: OidcAdapterFactory,
): Promise<AgeProvider> {
  const { env, clock, logger, db: givenDb, domainProbe, ...settings } = options;
  // Every section of the configuration, read and checked before anything opens or listens.
  const { config, warnings } = await loadConfig(settings, env ?? process.env);
  // Every warning and error line, the database driver's included, collapses its repeats (an outage writes a few lines).
  const repeats = collapseRepeats(logger ?? createLogger(config.logLevel));
  const log = repeats.logger;
  for (const warning of warnings) log.warn(warning);
  warnAboutUntrustedProxy(config.issuer, config.trustProxy, log);

  // Run in reverse: the counts of repeats are written last.
  const closers: Array<() => Promise<void> | void> = [() => repeats.close()];
  const db = givenDb ?? (await openConfiguredDatabase(config, log));
  if (!givenDb) closers.push(() => db.destroy());

  try {
    // A database this build may not run on (lib/store/migrate.ts) is refused here, and released below.
    if (!givenDb) await migrate(db, log);
    return await assemble({ config, db, clock: clock ?? systemClock, log, repeats, domainProbe, oidcAdapter, closers });
  } catch (error) {
    // A resource a feature opens (a vendor's key file, a GeoIP database) can fail after the database opened: release
    // it (and the embedded lock) before throwing.
    for (const task of closers.reverse()) await task();
    throw error;
  }
}

/**
 * The webhook worker's own pool of WEBHOOK_DATABASE_CONNECTIONS on PostgreSQL, closed after the worker stops: however
 * many endpoints hang or fail, it never takes a connection visitors' requests need. The embedded database has one
 * connection that every statement queues for; the worker shares it, and never holds it across a request to a receiver
 * (docs/decisions/webhooks.md "Delivery under faults").
 */
async function deliveryDatabase(
  config: Config,
  db: Database,
  log: Logger,
  closers: Array<() => Promise<void> | void>,
): Promise<Database> {
  if (!config.databaseUrl || isEmbedded(db)) return db;
  const own = await openConfiguredDatabase({ ...config, dbPoolMax: config.webhooks.databaseConnections }, log);
  closers.push(() => own.destroy());
  return own;
}

interface AssemblyInput {
  config: Config;
  db: Database;
  clock: Clock;
  log: Logger;
  repeats: RepeatLog;
  domainProbe: DomainProbe | undefined;
  oidcAdapter: OidcAdapterFactory;
  closers: Array<() => Promise<void> | void>;
}

async function assemble({
  config,
  db,
  clock,
  log,
  repeats,
  domainProbe,
  oidcAdapter,
  closers,
}: AssemblyInput): Promise<AgeProvider> {
  // Read at each scrape from the runtime built below; counted where each event happens.
  const metrics = createMetrics({
    redisFallbackActive: () => runtime.rateLimits.fallbackActive(),
    availability: () => runtime.challenges.availability(),
    databasePool: () => poolState(db),
    changeFeedTrusted: () => clients.feedTrusted(),
    // eu_av's report of the list it follows, as /readyz shows it (lib/verification/challenges/eu-av/index.ts).
    trustedList: () =>
      (runtime.challenges.readiness()['eu_av'] as { trusted_list?: TrustedListReport } | undefined)?.trusted_list,
    version: packageVersion(),
  });
  closers.push(watchFailures(db, metrics.databaseFailures));
  const clients = await createClientCache(db, clock, log, config.clientCache);
  closers.push(() => clients.close());
  const redis = config.redis && (await connectSharedLimitStore(config.redis, log));
  if (redis) closers.push(() => redis.close());
  let registry: ChallengeRegistry | undefined;
  const runtime: Runtime = {
    config,
    db,
    sealer: createSealer(config.sealingKey),
    cookieKeys: new CookieKeys(config.cookieKeys),
    clock,
    log,
    rateLimits: createRateLimits(db, config.limits, redis, metrics.limitRefused),
    clients,
    get challenges() {
      if (!registry) throw new Error('the challenge registry is read while it is being built');
      return registry;
    },
    geo: createGeoResolver({ config, log }),
    tally: new Tally(),
    flows: metrics.flows,
    recordChange,
    domainProbe: domainProbe ?? publicDomainProbe(DOMAIN_PROBE_TIMEOUT_MS),
    onClose: (task: () => Promise<void> | void) => {
      closers.push(task);
    },
  };

  // The challenges are configured from the runtime they then belong to.
  registry = await buildRegistry(runtime);

  // Behind a proxy only the address it appended is trusted: earlier X-Forwarded-For entries are the client's to forge.
  const app = new Koa({ proxy: config.trustProxy, maxIpsCount: config.trustProxy ? 1 : 0 });
  app.keys = runtime.cookieKeys;
  app.silent = true;
  // Set once on the app, not per request: the issuer's origin on every request, the brand on every page.
  pinOriginToIssuer(app, config.issuer);
  showBrand(app, config.branding);
  app.use(
    requestEnvelope({
      log,
      repeats,
      metrics,
      trustProxy: config.trustProxy,
      https: config.issuer.startsWith('https://'),
      accessLog: config.accessLog,
    }),
  );
  const readiness: Readiness = { draining: false, detail: () => runtime.challenges.readiness() };
  const health = healthRoutes(db, readiness);
  const provider = createProvider(runtime, oidcAdapter);
  // Surfaces (lib/app/surfaces.ts): each request is handed to the one surface that claims it.
  app.use(mountSurfaces({ runtime, provider, health }));
  scheduleStatistics(runtime, metrics.countVerifications);
  // The statistics count the verifications before the sweep removes them.
  scheduleRetention(runtime, () => rollUpStatistics(runtime, metrics.countVerifications));
  const webhookDb = await deliveryDatabase(config, db, log, closers);
  // An endpoint disabled by a 410 answer (delivery) or by failing for days (upkeep) is mailed to the account's owners.
  const ownersMail = { mailer: config.mail && createMailer(config.mail, log), brand: config.branding.name };
  scheduleWebhookDelivery({
    runtime,
    db: webhookDb,
    metrics: webhookMetrics(metrics.registry, webhookDb),
    ...ownersMail,
  });
  scheduleOutboxMaintenance({ runtime, db: webhookDb, ...ownersMail });

  return {
    app,
    db,
    config,
    runtime,
    provider,
    operations: operationsApp(health, metrics),
    drain() {
      readiness.draining = true;
    },
    async close() {
      for (const task of closers.reverse()) await task();
    },
  };
}
