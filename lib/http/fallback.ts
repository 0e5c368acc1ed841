import type { Middleware } from 'koa';
import { negotiateLanguage } from '../i18n/negotiate.js';
import type { Logger } from '../log.js';
import { describeError, statusName } from './errors.js';
import { render } from './render.js';

/**
 * Outermost handler for the HTML surfaces: any error not answered by a surface of its own becomes an
 * error page in the visitor's language (a visitor never sees JSON or a stack trace), and so does an unknown path.
 */
export function fallbackErrors(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        render(ctx, 'error.njk', negotiateLanguage(undefined, undefined, ctx.get('Accept-Language')), { message: statusName(404) }, 404);
      }
    } catch (error) {
      const { status, message, headers } = describeError(error);
      if (status >= 500) log.error('unhandled error', { path: ctx.path, error: (error as Error).stack ?? String(error) });
      ctx.set(headers);
      render(ctx, 'error.njk', negotiateLanguage(undefined, undefined, ctx.get('Accept-Language')), { message }, status);
    }
  };
}
