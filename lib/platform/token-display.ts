import type { Context } from 'koa';
import type { Runtime } from '../runtime.js';

const COOKIE = 'ap_new_token';
const PATH = '/platform/account';

/**
 * A new API token crosses the post/redirect/get in a sealed, short-lived cookie that the account page reads once and
 * clears: reloading the page neither shows the token again nor generates another (which would revoke the one just copied).
 */
export function holdTokenForDisplay(ctx: Context, runtime: Pick<Runtime, 'sealer'>, webmasterId: number, token: string): void {
  ctx.cookies.set(COOKIE, runtime.sealer.seal(JSON.stringify({ webmasterId, token })), {
    httpOnly: true, sameSite: 'strict', secure: ctx.secure, path: PATH, maxAge: 5 * 60 * 1000, overwrite: true,
  });
}

/** The token held for this webmaster, once; a cookie that does not unseal or belongs to someone else is dropped. */
export function takeTokenForDisplay(ctx: Context, runtime: Pick<Runtime, 'sealer'>, webmasterId: number): string | undefined {
  const sealed = ctx.cookies.get(COOKIE);
  if (!sealed) return undefined;
  ctx.cookies.set(COOKIE, null, { httpOnly: true, sameSite: 'strict', secure: ctx.secure, path: PATH, overwrite: true });
  try {
    const held = JSON.parse(runtime.sealer.unseal(sealed)) as { webmasterId?: unknown; token?: unknown };
    return held.webmasterId === webmasterId && typeof held.token === 'string' ? held.token : undefined;
  } catch {
    return undefined;
  }
}
