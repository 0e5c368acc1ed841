import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A "PostgreSQL" that accepts connections and never answers, not even the start-up handshake: what a frozen database,
 * or a path that drops packets after the TCP handshake, looks like to a client opening a new connection.
 */
export async function frozenDatabase(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `postgres://nobody@127.0.0.1:${(server.address() as AddressInfo).port}/frozen`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
