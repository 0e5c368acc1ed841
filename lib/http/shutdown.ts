import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface GracefulServer {
  /**
   * Stops accepting connections, closes idle keep-alive connections, asks busy ones to close after their response
   * (`Connection: close`) and resolves true once every in-flight request finished, or false after `timeoutMs` when
   * the remaining connections were cut.
   */
  drain(timeoutMs: number): Promise<boolean>;
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
      // A connection whose response went out before the drain began is idle now: close it too.
      if (draining) server.closeIdleConnections();
    });
  });
  return {
    drain(timeoutMs) {
      draining = true;
      for (const response of inFlight) closeAfter(response);
      return new Promise<boolean>((resolve) => {
        const cut = setTimeout(() => {
          server.closeAllConnections();
          resolve(false);
        }, timeoutMs);
        // close() stops the listener and, since Node 19, closes idle connections; its callback waits for the busy ones.
        server.close(() => {
          clearTimeout(cut);
          resolve(true);
        });
        server.closeIdleConnections();
      });
    },
  };
}
