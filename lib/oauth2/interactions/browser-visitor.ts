import type { Context } from 'koa';
import { randomToken } from '../../security/hashing.js';
import { OAUTH2_PATHS } from '../protocol.js';

const COOKIE = 'ap_visitor';
/** The path of the cookies only the interaction pages read. */
export const INTERACTION_COOKIE_PATH = OAUTH2_PATHS.interaction('').replace(/\/$/, '');

declare module 'koa' {
  interface DefaultState {
    /** set when this request gave the browser a new anonymous visitor: the cookie it sent is no longer this browser's */
    browserVisitor?: string;
  }
}

/** A new anonymous visitor for this browser; a session cookie, so it ends with the browser session. */
function issueBrowserVisitor(ctx: Context): string {
  const id = randomToken(18);
  ctx.cookies.set(COOKIE, id, {
    signed: true,
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: INTERACTION_COOKIE_PATH,
    overwrite: true,
  });
  ctx.state.browserVisitor = id;
  return `anon:${id}`;
}

/**
 * The anonymous visitor of this browser session, `anon:<random>`: the subject of age proofs reusable in this
 * browser, and the account id oidc-provider records when no visitor account is signed in. Created on first need.
 */
export function browserVisitor(ctx: Context, create: true): string;
export function browserVisitor(ctx: Context, create: false): string | undefined;
export function browserVisitor(ctx: Context, create: boolean): string | undefined {
  const existing = ctx.state.browserVisitor ?? ctx.cookies.get(COOKIE, { signed: true });
  if (existing) return `anon:${existing}`;
  return create ? issueBrowserVisitor(ctx) : undefined;
}

/**
 * The subject for a proof this browser has just earned: always a new anonymous visitor (the cookie rotates). A
 * cookie this browser held before, which someone else may have planted (a sibling subdomain can set it) and kept a
 * copy of, therefore never reaches the proof. Proofs of the previous cookie stay with it.
 */
export const browserVisitorForNewProof = (ctx: Context): string => issueBrowserVisitor(ctx);
