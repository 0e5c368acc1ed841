import { randomBytes } from 'node:crypto';
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
/**
 * Idle time before the kernel probes the LISTEN connection (TCP keepalive): a connection that only ever receives
 * would otherwise never learn that its peer is gone, and a NAT or firewall forgets an idle flow.
 */
const KEEPALIVE_DELAY_MS = 10_000;
/** A goodbye that gets no answer (the connection went silent) is cut after this long. */
const HANG_UP_MS = 1000;
/**
 * A heartbeat's payload starts with this: the triggers' notifications carry a table name, so a heartbeat (this
 * instance's or another's) is never taken for a change.
 */
const HEARTBEAT_PREFIX = 'heartbeat:';

export interface ChangeFeedOptions {
  /**
   * Every `heartbeatMs` the feed notifies its own channel on its own connection and must have heard the previous
   * heartbeat back; when it has not, the feed is distrusted and its connection replaced.
   */
  heartbeatMs: number;
}

export interface ChangeFeed {
  /** Whether every change since the last `onChange` call is guaranteed to be announced (false while disconnected). */
  readonly trusted: boolean;
  close(): Promise<void>;
}

/** pg's socket under a client, to cut a connection whose peer no longer answers. */
interface WithSocket {
  connection: { stream: { destroy(): void } };
}

/** Ends a connection, cutting it when its peer does not answer: a silent connection never acknowledges a goodbye. */
async function hangUp(connection: pg.Client): Promise<void> {
  const cut = setTimeout(() => (connection as unknown as WithSocket).connection.stream.destroy(), HANG_UP_MS);
  try {
    await connection.end();
  } catch {
    // Already ended or broken: nothing left to close.
  } finally {
    clearTimeout(cut);
  }
}

/**
 * Tells `onChange` when the database says a channel changed: LISTEN on a connection of its own on PostgreSQL (so
 * every instance hears every instance's writes), PGlite's own listen on the embedded database. While the feed cannot
 * be trusted it is not `trusted` and `onChange` fires again once it is back, so a cache built on it falls back to the
 * database instead of serving what it missed. On PostgreSQL it is distrusted when its connection fails or ends, and
 * also when it goes silent without closing (a NAT or firewall that dropped the flow, a partition, a stuck backend):
 * the feed sends itself a heartbeat through the database every `heartbeatMs` and must hear it before the next, so a
 * silent feed is distrusted within two heartbeats. Distrust and recovery are logged.
 */
export async function listenForChanges(
  db: Database,
  channel: string,
  onChange: () => void,
  log: Logger,
  options: ChangeFeedOptions,
): Promise<ChangeFeed> {
  if (isEmbedded(db)) {
    // In-process: nothing between the database and its listener can go silent.
    const pglite = (db.client.config.connection as { pglite: PGlite }).pglite;
    const unsubscribe = await pglite.listen(channel, onChange);
    // An instance closed under us (a test of an outage, the owner's own close) has nothing left to unsubscribe.
    return { trusted: true, close: () => unsubscribe().catch(() => undefined) };
  }
  // The same server and credentials as the pool's (knex takes a URL or a pg configuration).
  const connection = db.client.config.connection as string | pg.ClientConfig;
  const bounds = {
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  };
  // This feed's heartbeats, told from other instances' by a random id and from each other by a count.
  const ownHeartbeat = `${HEARTBEAT_PREFIX}${randomBytes(8).toString('hex')}:`;
  let beats = 0;
  /** the heartbeat sent and not heard yet */
  let awaited: string | undefined;
  /** the connection listening, once LISTEN succeeded and until it is distrusted */
  let client: pg.Client | undefined;
  let closed = false;
  /** set from a failure until the feed listens again, so that its recovery is logged */
  let failing = false;
  let retry: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;

  const distrust = (lost: pg.Client, reason: string) => {
    if (closed || lost !== client) return;
    client = undefined;
    failing = true;
    clearInterval(heartbeat);
    onChange();
    log.warn('distrusting the database change feed: client lookups go to the database until it is back', {
      channel,
      reason,
    });
    void hangUp(lost);
    retry = setTimeout(() => void connect(), RECONNECT_MS);
  };

  const beat = (current: pg.Client) => {
    if (awaited !== undefined) {
      distrust(current, `no heartbeat heard back within ${options.heartbeatMs} ms`);
      return;
    }
    beats += 1;
    awaited = `${ownHeartbeat}${beats}`;
    // Not awaited: the answer that matters is the notification. A failed send is a heartbeat missed at the next beat.
    current.query('SELECT pg_notify($1, $2)', [channel, awaited]).catch(() => undefined);
  };

  const heard = (from: pg.Client, payload: string | undefined) => {
    if (from !== client) return;
    if (payload?.startsWith(HEARTBEAT_PREFIX)) {
      if (payload === awaited) awaited = undefined;
      return;
    }
    onChange();
  };

  async function connect(): Promise<void> {
    // Bounded like the pool's connections, so a database that does not answer never holds the start-up.
    const next = new pg.Client(
      typeof connection === 'string' ? { connectionString: connection, ...bounds } : { ...bounds, ...connection },
    );
    next.on('notification', (message) => heard(next, message.payload));
    next.on('error', (error) => distrust(next, error.message));
    next.on('end', () => distrust(next, 'the connection ended'));
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
    } catch (error) {
      await hangUp(next);
      failing = true;
      if (!closed) retry = setTimeout(() => void connect(), RECONNECT_MS);
      log.warn('could not listen for database changes: retrying', { channel, error: (error as Error).message });
      return;
    }
    if (closed) {
      await hangUp(next);
      return;
    }
    client = next;
    awaited = undefined;
    heartbeat = setInterval(() => beat(next), options.heartbeatMs);
    // Whatever changed while nobody listened is unknown: start afresh.
    onChange();
    if (failing) log.info('the database change feed is back: client lookups are cached again', { channel });
    failing = false;
  }

  // In the background: until it listens the feed is not trusted, so nothing is served from a cache meanwhile.
  void connect();
  return {
    get trusted() {
      return client !== undefined;
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      clearInterval(heartbeat);
      const listening = client;
      client = undefined;
      if (listening) await hangUp(listening);
    },
  };
}
