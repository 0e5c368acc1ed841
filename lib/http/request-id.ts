import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';

interface RequestScope {
  requestId: string;
}

const scopes = new AsyncLocalStorage<RequestScope>();

/** The id of the request being served (undefined outside one): every log line written while serving it carries it. */
export const currentRequestId = (): string | undefined => scopes.getStore()?.requestId;

/** What a proxy in front of us may hand over as its own request id (anything else is replaced by ours). */
const FORWARDED_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * This request's id: the trusted proxy's `X-Request-Id` when it sent a plain one, else a UUID. The caller answers it
 * in `X-Request-Id` and serves the request under it (withRequestId), so an operator can match a visitor's report, the
 * stack logged by the surface and the access line.
 */
export function requestIdOf(ctx: Context, trustProxy: boolean): string {
  const forwarded = trustProxy ? ctx.get('X-Request-Id') : '';
  return FORWARDED_ID.test(forwarded) ? forwarded : randomUUID();
}

/** Runs `serve` so that every log line written until it settles carries `requestId`. */
export const withRequestId = <T>(requestId: string, serve: () => T): T => scopes.run({ requestId }, serve);
