import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

export interface GracefulServer {
  /**
   * Keeps serving as before for `delayMs` (load balancers that probe /readyz move away meanwhile), then stops
   * accepting connections and asks every response from then on to close its connection (`Connection: close`): a
   * keep-alive client's next request is answered, and its next connection is refused, so it moves to another
   * instance. A connection is closed by the server only once it has been idle for IDLE_MARGIN_MS. Resolves true
   * once every connection is closed, or false `timeoutMs` after the call (the delay included) when the remaining
   * connections were cut.
   */
  drain(options: { delayMs: number; timeoutMs: number }): Promise<boolean>;
}

/**
 * How long a connection must have been idle (since it opened, or since its last response) before a drain closes it.
 * A request already in the kernel's buffer, not yet parsed, looks exactly like an idle connection to Node's own
 * closeIdleConnections(), and closing a socket with unread bytes sends a reset: the client loses a request it had
 * sent, which a proxy cannot replay if it is a POST. A request follows a connection's opening or its previous
 * response within milliseconds, and a proxy's pool closes an idle connection sooner than this (the shipped nginx
 * configuration after 1 s: examples/deploy/nginx), so a connection idle this long is not about to be used.
 *
 * Why keep-alive goes on during the delay: a `Connection: close` there sends a proxy that does not probe /readyz
 * (nginx) to open a new connection for each request, and a connection still in the kernel's accept queue when the
 * listener closes is reset by the kernel, its request lost. Kept-alive connections need no new one.
 */
export const IDLE_MARGIN_MS = 2000;
const SWEEP_EVERY_MS = 100;

/** Follows a server's connections and in-flight responses from now on, so a later drain can let them finish and close them. */
export function graceful(server: Server): GracefulServer {
  const inFlight = new Set<ServerResponse>();
  /** each open connection with no request in progress, and since when */
  const idleSince = new Map<Socket, number>();
  const busy = new Set<Socket>();
  let closing = false;
  const closeAfter = (response: ServerResponse) => {
    if (!response.headersSent) response.setHeader('Connection', 'close');
  };
  server.on('connection', (socket: Socket) => {
    idleSince.set(socket, Date.now());
    socket.once('close', () => {
      idleSince.delete(socket);
      busy.delete(socket);
    });
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const { socket } = request;
    if (closing) closeAfter(response);
    inFlight.add(response);
    busy.add(socket);
    idleSince.delete(socket);
    response.once('close', () => {
      inFlight.delete(response);
      busy.delete(socket);
      if (!socket.destroyed) idleSince.set(socket, Date.now());
    });
  });
  /** Closes the connections idle for longer than the margin; the others get the next sweep. */
  const sweep = () => {
    const now = Date.now();
    for (const [socket, since] of idleSince) {
      if (!busy.has(socket) && now - since >= IDLE_MARGIN_MS) socket.destroy();
    }
  };
  return {
    drain({ delayMs, timeoutMs }) {
      return new Promise<boolean>((resolve) => {
        let sweeping: NodeJS.Timeout | undefined;
        const cut = setTimeout(() => {
          clearInterval(sweeping);
          server.closeAllConnections();
          resolve(false);
        }, timeoutMs);
        const close = () => {
          closing = true;
          for (const response of inFlight) closeAfter(response);
          // net.Server's close stops the listener and calls back once every connection closed. http.Server's own
          // close() would also run closeIdleConnections(), resetting connections whose request is not parsed yet.
          NetServer.prototype.close.call(server, () => {
            clearTimeout(cut);
            clearInterval(sweeping);
            resolve(true);
          });
          sweep();
          sweeping = setInterval(sweep, SWEEP_EVERY_MS);
        };
        if (delayMs > 0) setTimeout(close, Math.min(delayMs, timeoutMs));
        else close();
      });
    },
  };
}
