import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../log.js';

interface RequestScope {
  requestId: string;
}

const scopes = new AsyncLocalStorage<RequestScope>();

/** The id of the request being served (undefined outside one): every log line written while serving it carries it. */
export const currentRequestId = (): string | undefined => scopes.getStore()?.requestId;

/** What a proxy in front of us may hand over as its own request id (anything else is replaced by ours). */
const FORWARDED_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Outermost middleware: gives each request an id (the trusted proxy's `X-Request-Id` when it sent a plain one, else
 * a UUID), answers it in `X-Request-Id`, and logs every 5xx answer with it whichever surface produced it, so an
 * operator can match a visitor's report, the stack logged by the surface and the access line.
 */
export function requestIds(log: Logger, trustProxy: boolean): Middleware {
  return (ctx, next) => {
    const forwarded = trustProxy ? ctx.get('X-Request-Id') : '';
    const requestId = FORWARDED_ID.test(forwarded) ? forwarded : randomUUID();
    ctx.set('X-Request-Id', requestId);
    return scopes.run({ requestId }, async () => {
      try {
        await next();
      } finally {
        const status = ctx.status;
        if (status >= 500) log.error('request answered with a server error', { status, method: ctx.method, path: ctx.path });
      }
    });
  };
}
