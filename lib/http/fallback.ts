import type { Middleware } from 'koa';
import type { Logger } from '../log.js';
import { describeError } from './errors.js';
import { errorShapeOf, writeJsonError } from './surface-errors.js';
import { VisitorError, visitorErrors } from './visitor-errors.js';

/**
 * Outermost handler: any error a surface did not answer itself becomes that surface's error (JSON for the External
 * API, the back channel and the requirement), else, like any path nobody served, the visitor error page in the
 * browser's language.
 */
export function fallbackErrors(log: Logger): Middleware {
  const handle = visitorErrors(log);
  return (ctx, next) =>
    handle(ctx, async () => {
      try {
        await next();
      } catch (error) {
        // Past a JSON surface's own handler (the request deadline, for one): still that surface's shape.
        const shape = errorShapeOf(ctx);
        if (shape === 'visitor') throw error;
        const { status, message, headers, code } = describeError(error);
        if (status >= 500) log.error('request failed', { path: ctx.path, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
        writeJsonError(ctx, shape, { status, message, headers, code: code ?? (status >= 500 ? 'server_error' : 'invalid_request') });
        return;
      }
      if (ctx.status === 404 && ctx.body === undefined) throw new VisitorError('not_found', 404);
    });
}
