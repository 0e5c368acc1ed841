import type { Middleware } from 'koa';
import type { Logger } from '../log.js';
import { VisitorError, visitorErrors } from './visitor-errors.js';

/**
 * Outermost handler: any error a surface did not answer itself, and any path nobody served, becomes the visitor
 * error page in the browser's language.
 */
export function fallbackErrors(log: Logger): Middleware {
  const handle = visitorErrors(log);
  return (ctx, next) =>
    handle(ctx, async () => {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new VisitorError('not_found', 404);
    });
}
