import type { Middleware } from 'koa';
import type { Logger } from '../log.js';
import { VisitorError, visitorErrors } from './visitor-errors.js';

/**
 * Outermost handler: the visitor's error page, in the browser's language, for any error of a browser surface and
 * for any path nobody served. The JSON surfaces answer their own errors (lib/surfaces.ts wraps each in its shape).
 */
export function fallbackErrors(log: Logger): Middleware {
  const handle = visitorErrors(log);
  return (ctx, next) =>
    handle(ctx, async () => {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new VisitorError('not_found', 404);
    });
}
