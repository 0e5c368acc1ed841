import { createHmac, type KeyObject } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type {} from 'koa-body';
import { CookieKeys } from '../security/cookie-keys.js';
import { randomToken, safeEqual } from '../security/hashing.js';
import { HttpError } from './errors.js';
import { hostOnlyCookieName } from './issuer-origin.js';

const cookieName = (ctx: Context): string => hostOnlyCookieName(ctx.secure, 'ap_csrf');

declare module 'koa' {
  interface DefaultState {
    /** what this request's forms act on: `interaction:<uid>`, `platform-session:<id>`; none before a session exists */
    csrfBinding?: string;
  }
}

/**
 * Binds the form tokens of this request to what the forms act on (an interaction, a platform session). A token is
 * an HMAC, under the server's cookie keys, of that binding and this browser's secret (OWASP "signed double-submit
 * cookie"): another browser's cookie and token, even planted here, are refused in this interaction or session.
 */
export function bindCsrf(ctx: Context, binding: string): void {
  ctx.state.csrfBinding = binding;
}

/**
 * The binding of a form served where no interaction is known yet whose post is relayed (307) into one: the
 * federated relay page at the fixed callback URI. There the sealed state ties the answer to its interaction.
 */
export const RELAYED_FORM_BINDING = 'relayed-form';

/**
 * The server's cookie keys, newest first: the token is made with the first and accepted under any (key rotation).
 * Ours (CookieKeys), or an operator's app's own when it mounts ours and keeps its keys as strings.
 */
function serverKeys(ctx: Context): ReadonlyArray<KeyObject | string> {
  const keys: unknown = ctx.app.keys;
  if (keys instanceof CookieKeys) return keys.keys;
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every((key): key is string => typeof key === 'string')) {
    throw new Error('the app needs its cookie keys for form tokens');
  }
  return keys;
}

const tokenOf = (ctx: Context, key: KeyObject | string, secret: string): string =>
  createHmac('sha256', key)
    .update(`${ctx.state.csrfBinding ?? ''}\0${secret}`)
    .digest('base64url');

/** The form token for this browser and this request's binding (a signed, HttpOnly cookie holds the browser's secret). */
export function csrfToken(ctx: Context): string {
  let secret = ctx.cookies.get(cookieName(ctx), { signed: true });
  if (!secret) {
    secret = randomToken(24);
    ctx.cookies.set(cookieName(ctx), secret, {
      signed: true,
      httpOnly: true,
      sameSite: 'lax',
      secure: ctx.secure,
      overwrite: true,
    });
  }
  return tokenOf(ctx, serverKeys(ctx)[0]!, secret);
}

/** Throws 403 unless `sent` (the form's `_csrf` field) is this browser's token for this request's binding; for a body parsed by its handler. */
export function checkCsrfToken(ctx: Context, sent: unknown): void {
  const secret = ctx.cookies.get(cookieName(ctx), { signed: true });
  const valid =
    typeof sent === 'string' &&
    secret !== undefined &&
    serverKeys(ctx).some((key) => safeEqual(sent, tokenOf(ctx, key, secret)));
  if (!valid) throw new HttpError(403, 'This form has expired. Go back, reload the page and try again.');
}

/** Rejects a state-changing request whose `_csrf` field does not match the cookie (403). Run after the body parser. */
export const requireCsrf: Middleware = async (ctx, next) => {
  if (ctx.method === 'POST') checkCsrfToken(ctx, (ctx.request.body as Record<string, unknown> | undefined)?._csrf);
  await next();
};
