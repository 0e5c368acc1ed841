import type { Context, Middleware } from 'koa';
import type {} from 'koa-body';
import { randomToken, safeEqual } from '../security/hashing.js';
import { HttpError } from './errors.js';

const COOKIE = 'ap_csrf';

/** The form token for this browser (a signed, HttpOnly cookie holds the same value: double submit). */
export function csrfToken(ctx: Context): string {
  const existing = ctx.cookies.get(COOKIE, { signed: true });
  if (existing) return existing;
  const token = randomToken(24);
  ctx.cookies.set(COOKIE, token, { signed: true, httpOnly: true, sameSite: 'lax', secure: ctx.secure, overwrite: true });
  return token;
}

/** Throws 403 unless `sent` (the form's `_csrf` field) matches this browser's token; for a body parsed by its handler. */
export function checkCsrfToken(ctx: Context, sent: unknown): void {
  const expected = ctx.cookies.get(COOKIE, { signed: true });
  if (typeof sent !== 'string' || !expected || !safeEqual(sent, expected)) {
    throw new HttpError(403, 'This form has expired. Go back, reload the page and try again.');
  }
}

/** Rejects a state-changing request whose `_csrf` field does not match the cookie (403). Run after the body parser. */
export const requireCsrf: Middleware = async (ctx, next) => {
  if (ctx.method === 'POST') checkCsrfToken(ctx, (ctx.request.body as Record<string, unknown> | undefined)?._csrf);
  await next();
};
