import type { Middleware } from 'koa';
import { describeError, HttpError, statusName } from '../http/errors.js';
import { noteFailure } from '../http/failure-log.js';

/** The External API's error body (docs/external-api.md). */
export interface ErrorBody {
  message: string;
  error: string;
  statusCode: number;
}

const UNANSWERED: Record<number, string> = {
  404: 'No such endpoint in the External API.',
  405: 'This endpoint does not accept the method; see the Allow header.',
  501: 'This method is not supported by the External API.',
};

/**
 * Every failure under /external answers `{message, error, statusCode}`: thrown errors, unknown
 * paths, wrong methods (the router leaves them without a body), parser errors; a 5xx is noted for
 * the envelope's log line (lib/http/failure-log.ts).
 */
export function jsonErrors(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status >= 400 && !ctx.body)
        throw new HttpError(ctx.status, UNANSWERED[ctx.status] ?? statusName(ctx.status));
    } catch (error) {
      const { status, message, headers } = describeError(error);
      if (status >= 500) noteFailure(ctx, error);
      ctx.set(headers);
      ctx.set('Cache-Control', 'no-store');
      const body: ErrorBody = { message, error: statusName(status), statusCode: status };
      ctx.status = status;
      ctx.body = body;
    }
  };
}
