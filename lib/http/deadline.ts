import type { Middleware } from 'koa';

/** A request ran past REQUEST_TIMEOUT_MS; its code marks it as an outage (503 with Retry-After), like a database timeout. */
export class RequestDeadlineError extends Error {
  override name = 'RequestDeadlineError';
  readonly code = 'REQUEST_DEADLINE';
}

/**
 * Bounds a whole request: when the work behind it (database waits, vendor calls) has not finished in `timeoutMs`,
 * the request fails with a RequestDeadlineError instead of holding the client. The work itself stops at its own
 * bounds (statement and acquire timeouts); its late result is dropped. One promise and one timer per request.
 */
export function requestDeadline(timeoutMs: number): Middleware {
  return (ctx, next) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new RequestDeadlineError(`request took longer than ${timeoutMs} ms`)),
        timeoutMs,
      );
      // After the deadline answered, the work's own end (or failure) has nobody to go to: settling again does nothing.
      next().then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
}
