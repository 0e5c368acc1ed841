import { STATUS_CODES } from 'node:http';
import type { Context } from 'koa';
import { Refusal, type RefusalKind } from '../refusal.js';
import { abortedForAnother } from '../store/retry.js';
import { isDatabaseUnavailable } from '../store/unavailable.js';
import { OUTAGE } from './outage.js';

/** An error whose status and message are safe to show to the caller; `code` is its `error` field in a JSON answer. */
export class HttpError extends Error {
  override name = 'HttpError';
  readonly headers: Record<string, string>;
  constructor(
    readonly status: number,
    message: string,
    headers: Record<string, string> = {},
    readonly code?: string,
  ) {
    super(message);
    this.headers = headers;
  }
}

/** An RFC 6749 §5.2-style JSON error answer (`error`, `error_description`) with its status and headers (Retry-After, WWW-Authenticate...). */
export function oauthJsonError(
  ctx: Context,
  status: number,
  code: string,
  description: string,
  headers: Record<string, string> = {},
): void {
  ctx.status = status;
  ctx.set(headers);
  ctx.body = { error: code, error_description: description };
}

/** The HTTP status name, e.g. 401 → "Unauthorized". */
export const statusName = (status: number): string => STATUS_CODES[status] ?? 'Error';

/** How every surface answers a domain's refusal (another webmaster's website is 401, as the specification says). */
const REFUSAL_STATUS: Record<RefusalKind, number> = { invalid: 400, not_found: 404, not_permitted: 401, conflict: 400 };

/**
 * Status and safe message for any thrown value: our HttpError, a domain's Refusal, koa/http-errors with `expose`
 * (body parser 400/413/415), a database outage as 503 with Retry-After (and its OAuth2 `code`), a transaction still
 * aborted as a deadlock after its runs as 503 too, else 500 with a generic message.
 */
export function describeError(error: unknown): {
  status: number;
  message: string;
  headers: Record<string, string>;
  code?: string;
} {
  if (error instanceof HttpError) return { status: error.status, message: error.message, headers: error.headers };
  if (error instanceof Refusal) return { status: REFUSAL_STATUS[error.kind], message: error.message, headers: {} };
  if (isDatabaseUnavailable(error))
    return { status: OUTAGE.status, message: OUTAGE.message, headers: { ...OUTAGE.headers }, code: OUTAGE.code };
  // Still aborted after its runs (lib/store/retry.ts): it changed nothing, and running it again in a moment will do.
  if (abortedForAnother(error))
    return {
      status: 503,
      message: 'Concurrent changes collided. Nothing was changed: retry in a moment.',
      headers: { 'Retry-After': '1' },
      code: OUTAGE.code,
    };
  const candidate = error as {
    status?: unknown;
    statusCode?: unknown;
    expose?: unknown;
    message?: unknown;
    headers?: unknown;
  };
  const status = Number(candidate.status ?? candidate.statusCode);
  if (Number.isInteger(status) && status >= 400 && status < 500 && candidate.expose !== false) {
    return {
      status,
      message: typeof candidate.message === 'string' ? candidate.message : statusName(status),
      headers: {},
    };
  }
  return { status: 500, message: 'An unexpected error occurred.', headers: {} };
}
