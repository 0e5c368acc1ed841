import type { Context } from 'koa';
import { oauthJsonError, statusName } from './errors.js';

/** Which error shape a surface's callers expect: spec 2.7 JSON, RFC 6749 JSON, or the visitor's HTML page. */
export type ErrorShape = 'external' | 'oauth' | 'visitor';

/** The shape of the surface that claimed the request (lib/surfaces.ts); before any did, the visitor's page. */
export function errorShapeOf(ctx: Context): ErrorShape {
  return (ctx.state as { surface?: { errors: ErrorShape } }).surface?.errors ?? 'visitor';
}

export interface JsonError {
  status: number;
  message: string;
  headers?: Record<string, string>;
  /** the RFC 6749 `error` code; the External API's `error` is always the status name */
  code: string;
}

/** Writes an error in a JSON surface's shape, never cached. */
export function writeJsonError(ctx: Context, shape: Exclude<ErrorShape, 'visitor'>, error: JsonError): void {
  const headers = { ...error.headers, 'Cache-Control': 'no-store' };
  if (shape === 'oauth') return oauthJsonError(ctx, error.status, error.code, error.message, headers);
  ctx.status = error.status;
  ctx.set(headers);
  ctx.body = { message: error.message, error: statusName(error.status), statusCode: error.status };
}
