import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface GracefulServer {
  /**
   * Asks every response from now on to close its connection (`Connection: close`) while still listening for
   * `delayMs`: a request a client already sent on a keep-alive connection is answered, not reset. Then stops
   * accepting connections and closes idle ones, and resolves true once every in-flight request finished, or false
   * `timeoutMs` after the call (the delay included) when the remaining connections were cut.
   */
  drain(options: { delayMs: number; timeoutMs: number }): Promise<boolean>;
}

/** Follows a server's in-flight responses from now on, so a later drain can let them finish and close their connections. */
export function graceful(server: Server): GracefulServer {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  const closeAfter = (response: ServerResponse) => {
    if (!response.headersSent) response.setHeader('Connection', 'close');
  };
  server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
    if (draining) closeAfter(response);
    inFlight.add(response);
    response.once('close', () => {
      inFlight.delete(response);
      // A connection whose response went out before the drain began is idle now: close it too, once the listener is.
      if (draining && !server.listening) server.closeIdleConnections();
    });
  });
  return {
    drain({ delayMs, timeoutMs }) {
      draining = true;
      for (const response of inFlight) closeAfter(response);
      return new Promise<boolean>((resolve) => {
        const cut = setTimeout(() => {
          server.closeAllConnections();
          resolve(false);
        }, timeoutMs);
        const close = () => {
          // close() stops the listener and, since Node 19, closes idle connections; its callback waits for the busy ones.
          server.close(() => {
            clearTimeout(cut);
            resolve(true);
          });
          server.closeIdleConnections();
        };
        if (delayMs > 0) setTimeout(close, Math.min(delayMs, timeoutMs));
        else close();
      });
    },
  };
}
