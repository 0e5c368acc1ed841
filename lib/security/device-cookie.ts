import type { Context } from 'koa';
import { randomToken, safeEqual, sha256 } from './hashing.js';

/** Where a device cookie lives: one per sign-in surface (platform, visitor pages), each under its own path. */
export interface DeviceCookieScope {
  name: string;
  path: string;
}

/** OWASP keeps device cookies for months: the point is that the owner's usual browser stays known. */
const DEVICE_COOKIE_DAYS = 180;

/** The account part of a device cookie: a digest, so the cookie does not carry the email or the username itself. */
const accountTag = (identifier: string): string => sha256(`device:${identifier}`);

/**
 * The device this browser proved to be, by an earlier successful sign-in to `identifier` (a normalised
 * identifier): the nonce of its signed device cookie, or undefined for a browser unknown to this account.
 * OWASP "slow brute-force protection with device cookies": `<account>.<nonce>`, signed with the cookie keys.
 */
export function knownDevice(ctx: Context, scope: DeviceCookieScope, identifier: string): string | undefined {
  const value = ctx.cookies.get(scope.name, { signed: true });
  const [tag, nonce] = value?.split('.') ?? [];
  return tag && nonce && safeEqual(tag, accountTag(identifier)) ? nonce : undefined;
}

/** After a successful sign-in: a fresh device cookie for this account (a new nonce every time, as OWASP asks). */
export function rememberDevice(ctx: Context, scope: DeviceCookieScope, identifier: string): void {
  ctx.cookies.set(scope.name, `${accountTag(identifier)}.${randomToken(18)}`, {
    signed: true,
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: scope.path,
    overwrite: true,
    maxAge: DEVICE_COOKIE_DAYS * 86400 * 1000,
  });
}
