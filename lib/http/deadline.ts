import type { Middleware } from 'koa';

/** A request ran past REQUEST_TIMEOUT_MS; its code marks it as an outage (503 with Retry-After), like a database timeout. */
export class RequestDeadlineError extends Error {
  override name = 'RequestDeadlineError';
  readonly code = 'REQUEST_DEADLINE';
}

/**
 * Bounds a whole request: when the work behind it (database waits, vendor calls) has not finished in `timeoutMs`,
 * the request fails with a RequestDeadlineError instead of holding the client. The work itself stops at its own
 * bounds (statement and acquire timeouts); its late result is dropped.
 */
export function requestDeadline(timeoutMs: number): Middleware {
  return async (ctx, next) => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new RequestDeadlineError(`request took longer than ${timeoutMs} ms`)), timeoutMs);
    });
    const work = next();
    // The work may still fail after the deadline answered: that failure has nobody to go to.
    work.catch(() => undefined);
    try {
      await Promise.race([work, deadline]);
    } finally {
      clearTimeout(timer);
    }
  };
}
