import type { Context } from 'koa';
import type { RepeatLog } from '../log-repeats.js';
import { isDatabaseUnavailable } from '../store/unavailable.js';
import { HttpError } from './errors.js';

declare module 'koa' {
  interface DefaultState {
    /** what this request was answered a 5xx for, noted by the surface that caught it */
    failure?: unknown;
  }
}

/**
 * Remembers the error a surface answered with a 5xx; the surface writes no line of its own, the envelope writes the
 * request's one line once the answer is known (`logServerError`).
 */
export function noteFailure(ctx: Context, error: unknown): void {
  ctx.state.failure = error;
}

const firstLine = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split('\n', 1)[0]!;

/**
 * The one log line of a request answered with a 5xx. An unexpected error is a defect: its stack, every time. A
 * failure the code expects (the database unreachable or too slow, a 5xx a handler chose) is one line without a
 * stack, and its repeats collapse into a count: one outage, however many requests it fails, writes a few lines.
 */
export function logServerError(repeats: RepeatLog, ctx: Context): void {
  const error = ctx.state.failure;
  const request = { status: ctx.status, method: ctx.method, path: ctx.path };
  if (isDatabaseUnavailable(error)) {
    repeats.write('error', 'database unavailable', 'request failed: the database is unreachable or too slow', {
      ...request,
      cause: firstLine(error),
    });
  } else if (error instanceof HttpError) {
    repeats.write('error', `${ctx.status} ${error.message}`, 'request answered with a server error', {
      ...request,
      reason: error.message,
    });
  } else if (error === undefined) {
    repeats.write('error', `${ctx.status} ${ctx.method} ${ctx.path}`, 'request answered with a server error', request);
  } else {
    repeats.every.error('request failed', {
      ...request,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
  }
}
