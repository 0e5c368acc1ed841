import type { Context } from 'koa';
import { randomToken } from '../../security/hashing.js';
import { OAUTH2_PATHS } from '../paths.js';

const COOKIE = 'ap_visitor';
// Only the interaction pages read it; a session cookie, so it ends with the browser session.
const COOKIE_PATH = OAUTH2_PATHS.interaction('').replace(/\/$/, '');

/**
 * The anonymous visitor of this browser session, `anon:<random>`: the subject of age proofs reusable in this
 * browser, and the account id oidc-provider records when no visitor account is signed in. Created on first need.
 */
export function browserVisitor(ctx: Context, create: true): string;
export function browserVisitor(ctx: Context, create: false): string | undefined;
export function browserVisitor(ctx: Context, create: boolean): string | undefined {
  const existing = ctx.cookies.get(COOKIE, { signed: true });
  if (existing) return `anon:${existing}`;
  if (!create) return undefined;
  const id = randomToken(18);
  ctx.cookies.set(COOKIE, id, { signed: true, httpOnly: true, sameSite: 'lax', secure: ctx.secure, path: COOKIE_PATH, overwrite: true });
  return `anon:${id}`;
}
