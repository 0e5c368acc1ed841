import Koa from 'koa';
import { systemClock, type Clock } from './clock.js';
import { loadConfig } from './config/load.js';
import type { Config, Settings } from './config/types.js';
import { fallbackErrors } from './http/fallback.js';
import { healthRoutes } from './http/health.js';
import { createMetrics } from './http/metrics.js';
import { createRateLimits } from './http/rate-limit.js';
import { securityHeaders } from './http/security-headers.js';
import { staticAssets } from './http/static-assets.js';
import { createGeoResolver } from './geo/resolver.js';
import { createLogger, type Logger } from './log.js';
import type { Runtime } from './runtime.js';
import { createSealer } from './security/sealing.js';
import { openDatabase, type Database } from './store/database.js';
import { migrate } from './store/migrate.js';

export interface AgeProviderOptions extends Partial<Settings> {
  /** Environment to read settings from (default process.env); options win over it. */
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  logger?: Logger;
  /** An open, migrated database to use instead of opening one (it is not closed by close()). */
  db?: Database;
}

export interface AgeProvider {
  /** The Koa app serving every surface; mount it or call app.callback(). */
  app: Koa;
  db: Database;
  config: Config;
  runtime: Runtime;
  /** Stops timers and closes the database the provider opened. */
  close(): Promise<void>;
}

/** Builds the whole service: configuration, storage (migrated), and the Koa app with every surface mounted. */
export async function createAgeProvider(options: AgeProviderOptions = {}): Promise<AgeProvider> {
  const { env, clock, logger, db: givenDb, ...settings } = options;
  const { config, warnings } = await loadConfig(settings, env ?? process.env);
  const log = logger ?? createLogger(config.logLevel);
  for (const warning of warnings) log.warn(warning);

  const closers: Array<() => Promise<void> | void> = [];
  const db = givenDb ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
  if (!givenDb) {
    closers.push(() => db.destroy());
    await migrate(db);
  }

  const base = {
    config,
    db,
    sealer: createSealer(config.sealingKey),
    clock: clock ?? systemClock,
    log,
    rateLimits: createRateLimits(db),
    env: env ?? process.env,
    onClose: (task: () => Promise<void> | void) => {
      closers.push(task);
    },
  };
  const runtime: Runtime = { ...base, geo: createGeoResolver(base) };

  const app = new Koa({ keys: config.cookieKeys, proxy: config.trustProxy });
  app.silent = true;
  const metrics = createMetrics();
  app.use(metrics.middleware);
  app.use(securityHeaders({ https: config.issuer.startsWith('https://') }));
  app.use(fallbackErrors(log));
  app.use(staticAssets());
  app.use(healthRoutes(db).routes());
  app.use(metrics.routes.routes());
  // Surfaces: each module mounts its own routes here (paths never collide; the provider goes last).

  return {
    app,
    db,
    config,
    runtime,
    async close() {
      for (const task of closers.reverse()) await task();
    },
  };
}
