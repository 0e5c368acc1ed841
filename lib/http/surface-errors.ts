import type { Context } from 'koa';
import { EXTERNAL_PREFIX } from '../external/surface.js';
import { BACK_CHANNEL_PATHS, LEGACY_PATHS } from '../oauth2/paths.js';
import { REQUIREMENT_PATH } from '../requirement/routes.js';
import { oauthJsonError, statusName } from './errors.js';

/** Which error shape a path's callers expect: spec 2.7 JSON, RFC 6749 JSON, or the visitor's HTML page. */
export type ErrorShape = 'external' | 'oauth' | 'visitor';

/** Paths answering RFC 6749-style JSON errors (the OAuth2 back channel, its legacy twins, the requirement). */
const OAUTH_JSON_PATHS = new Set<string>([...BACK_CHANNEL_PATHS, ...Object.keys(LEGACY_PATHS), REQUIREMENT_PATH]);

export function errorShapeOf(ctx: Context): ErrorShape {
  // Routers match case-insensitively and ignore a trailing slash: so does the shape.
  const path = ctx.path.toLowerCase().replace(/\/$/, '');
  if (path === EXTERNAL_PREFIX || path.startsWith(`${EXTERNAL_PREFIX}/`)) return 'external';
  return OAUTH_JSON_PATHS.has(path) ? 'oauth' : 'visitor';
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
