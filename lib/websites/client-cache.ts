import type { Clock } from '../clock.js';
import type { SettingsSection } from '../config/settings.js';
import type { Logger } from '../log.js';
import { CLIENTS_CHANNEL, listenForChanges, type ChangeFeed } from '../store/change-feed.js';
import type { Database } from '../store/database.js';

/** A lookup's answer and the moment it stops being true by itself (a credential pair's grace end), if any. */
export interface Cacheable<T> {
  value: T;
  validUntil?: Date | null;
}

export interface ClientCache {
  /** The cached answer for `key`, else `load`'s, remembered until a client change is announced or it lapses. */
  get<T>(key: string, load: () => Promise<Cacheable<T>>): Promise<T>;
  /** whether the change feed is heard now (lookups are remembered only then) */
  feedTrusted(): boolean;
  close(): Promise<void>;
}

/** A statement that writes what a client resolves from (the tables migration 005 watches). */
const CLIENT_WRITE =
  /^\s*(?:insert\s+into|update|delete\s+from)\s+"?(?:oauth2_configs|oauth2_credentials|websites|website_keys)"?\s/i;

export interface ClientCacheSettings {
  /** milliseconds between two heartbeats of the change feed; a silent feed is distrusted within two */
  heartbeatMs: number;
  /** milliseconds a remembered lookup is served at most, announced change or not */
  maxAgeMs: number;
}

/** The client cache's section of the configuration (docs/configuration.md, "Client lookups across instances"). */
export const clientCacheSettings: SettingsSection<ClientCacheSettings> = {
  spec: {
    heartbeatMs: {
      env: 'CHANGE_FEED_HEARTBEAT_MS',
      schema: { type: 'integer', minimum: 100, maximum: 60_000 },
      default: 2000,
    },
    maxAgeMs: {
      env: 'CLIENT_CACHE_MAX_AGE_MS',
      schema: { type: 'integer', minimum: 1000, maximum: 3_600_000 },
      default: 30_000,
    },
  },
};

/** A ceiling on remembered lookups: client_ids are guessable by nobody, but a stranger can send many made-up ones. */
const MAX_ENTRIES = 10_000;

/**
 * Client lookups remembered per instance: the authorization, resume, token and pages each resolve the
 * client, and a website's client changes rarely. Every write to the tables a client resolves from is announced by
 * the database (migration 005, lib/store/change-feed.ts), on PostgreSQL to every instance, and the cache forgets
 * everything: disabling, re-enabling, rotation and key regeneration take effect everywhere within moments. While the
 * announcements cannot be trusted (the LISTEN connection is down or went silent) nothing is served from memory. And
 * whatever the feed says, no lookup is served longer than `maxAgeMs`: a backstop for a change the feed missed.
 */
export async function createClientCache(
  db: Database,
  clock: Clock,
  log: Logger,
  settings: ClientCacheSettings,
): Promise<ClientCache> {
  const entries = new Map<string, { value: unknown; validUntil: number }>();
  // Bumped by every announcement: a lookup that started before one must not store what it read.
  let generation = 0;
  const forget = () => {
    generation += 1;
    entries.clear();
  };
  const feed: ChangeFeed = await listenForChanges(db, CLIENTS_CHANNEL, forget, log, {
    heartbeatMs: settings.heartbeatMs,
  });
  // This instance's own writes are forgotten as they start, not only once their announcement arrives: a website
  // that disables its client and then calls us again must not meet the old answer here.
  const onQuery = (query: { sql?: string }) => {
    if (query.sql && CLIENT_WRITE.test(query.sql)) forget();
  };
  db.on('query', onQuery);
  return {
    async get<T>(key: string, load: () => Promise<Cacheable<T>>): Promise<T> {
      const now = clock.now().getTime();
      const hit = feed.trusted ? entries.get(key) : undefined;
      if (hit && hit.validUntil > now) return hit.value as T;
      const started = generation;
      const { value, validUntil } = await load();
      if (feed.trusted && started === generation) {
        if (entries.size >= MAX_ENTRIES) entries.clear();
        const aged = now + settings.maxAgeMs;
        entries.set(key, { value, validUntil: validUntil ? Math.min(validUntil.getTime(), aged) : aged });
      }
      return value;
    },
    feedTrusted: () => feed.trusted,
    async close() {
      db.off('query', onQuery);
      await feed.close();
    },
  };
}
