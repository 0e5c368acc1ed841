import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Logger } from '../log.js';
import { isEmbedded, type Database } from './database.js';

/** The channel migration 005's triggers notify when a client's configuration, credentials, website or key changes. */
export const CLIENTS_CHANNEL = 'age_provider_clients';

/** How long a lost LISTEN connection waits before it tries again. */
const RECONNECT_MS = 1000;
/** A connection attempt that gets no answer gives up after this long (then retries). */
const CONNECT_TIMEOUT_MS = 5000;

export interface ChangeFeed {
  /** Whether every change since the last `onChange` call is guaranteed to be announced (false while disconnected). */
  readonly trusted: boolean;
  close(): Promise<void>;
}

/**
 * Tells `onChange` when the database says a channel changed: LISTEN on a connection of its own on PostgreSQL (so
 * every instance hears every instance's writes), PGlite's own listen on the embedded database. While the connection
 * is lost the feed is not `trusted` and `onChange` fires again once it is back, so a cache built on it falls back to
 * the database instead of serving what it missed.
 */
export async function listenForChanges(db: Database, channel: string, onChange: () => void, log: Logger): Promise<ChangeFeed> {
  if (isEmbedded(db)) {
    const pglite = (db.client.config.connection as { pglite: PGlite }).pglite;
    const unsubscribe = await pglite.listen(channel, onChange);
    // An instance closed under us (a test of an outage, the owner's own close) has nothing left to unsubscribe.
    return { trusted: true, close: () => unsubscribe().catch(() => undefined) };
  }
  // The same server and credentials as the pool's (knex takes a URL or a pg configuration).
  const connection = db.client.config.connection as string | pg.ClientConfig;
  let client: pg.Client | undefined;
  let trusted = false;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const lost = (error?: Error) => {
    if (closed || !trusted) return;
    trusted = false;
    onChange();
    log.warn('lost the database change feed: client lookups go to the database until it is back', { channel, error: error?.message });
    retry = setTimeout(() => void connect(), RECONNECT_MS);
  };

  async function connect(): Promise<void> {
    // Bounded like the pool's connections, so a database that does not answer never holds the start-up.
    const next = new pg.Client(typeof connection === 'string' ? { connectionString: connection, connectionTimeoutMillis: CONNECT_TIMEOUT_MS } : { connectionTimeoutMillis: CONNECT_TIMEOUT_MS, ...connection });
    next.on('notification', onChange);
    next.on('error', lost);
    next.on('end', () => lost());
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
    } catch (error) {
      next.removeAllListeners('end');
      await next.end().catch(() => undefined);
      if (!closed) retry = setTimeout(() => void connect(), RECONNECT_MS);
      log.warn('could not listen for database changes: retrying', { channel, error: (error as Error).message });
      return;
    }
    if (closed) {
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
    trusted = true;
    // Whatever changed while nobody listened is unknown: start afresh.
    onChange();
  }

  // In the background: until it listens the feed is not trusted, so nothing is served from a cache meanwhile.
  void connect();
  return {
    get trusted() {
      return trusted;
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
