import { createConnection, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** One connection through the proxy. */
export interface ProxiedConnection {
  /** its client sent a LISTEN: a change feed's connection */
  listens: boolean;
  silenced: boolean;
}

export interface TcpProxy {
  /** `databaseUrl` with its host and port replaced by the proxy's */
  url: string;
  connections(): ProxiedConnection[];
  /**
   * Stops forwarding, in both directions, on the connections `which` selects (all by default) without closing them:
   * what a NAT or firewall that dropped the flow, a partition or a frozen server looks like to both ends. Connections
   * made afterwards are forwarded. Returns how many were silenced.
   */
  silence(which?: (connection: ProxiedConnection) => boolean): number;
  /** Closes the silenced connections at both ends: the hang is over, and the client's reconnection is forwarded. */
  cutSilenced(): void;
  close(): Promise<void>;
}

/** A TCP proxy on 127.0.0.1 in front of the server of `databaseUrl` (PostgreSQL, Redis), that a test can silence. */
export async function startTcpProxy(databaseUrl: string): Promise<TcpProxy> {
  const target = new URL(databaseUrl);
  const open = new Map<ProxiedConnection, Socket[]>();
  const server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
    const connection: ProxiedConnection = { listens: false, silenced: false };
    open.set(connection, [client, upstream]);
    client.on('data', (chunk: Buffer) => {
      if (connection.silenced) return;
      // A simple query is one message, written at once: its text is within one chunk.
      if (chunk.includes('LISTEN ')) connection.listens = true;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!connection.silenced) client.write(chunk);
    });
    const end = () => {
      open.delete(connection);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    connections: () => [...open.keys()],
    silence(which = () => true) {
      const chosen = [...open.keys()].filter((connection) => !connection.silenced && which(connection));
      for (const connection of chosen) connection.silenced = true;
      return chosen.length;
    },
    cutSilenced() {
      for (const [connection, sockets] of open) if (connection.silenced) for (const socket of sockets) socket.destroy();
    },
    async close() {
      for (const sockets of open.values()) for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
