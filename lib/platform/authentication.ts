import type { Context, Middleware } from 'koa';
import type { ChangeOrigin } from '../changes.js';
import type { PlatformServices } from './services.js';
import { bindCsrf } from '../http/csrf.js';
import { seeOther } from '../http/see-other.js';
import { hasSecondFactor } from '../webmasters/second-factors.js';
import {
  closeSession,
  openAccountInSession,
  openSession,
  resumeSession,
  type SessionBrowser,
  type SessionStage,
  type SignedInWebmaster,
} from './sessions.js';

const COOKIE = 'ap_platform';
export const PLATFORM_PATH = '/platform';
/** Where a signed-in webmaster starts: their websites (an empty one explains the three steps to a working integration). */
export const PLATFORM_LANDING = `${PLATFORM_PATH}/websites`;
/** The device cookie of the platform: a browser that signed in to an account before passes its per-account throttle. */
export const PLATFORM_DEVICE = { name: 'ap_platform_device', path: PLATFORM_PATH };

const cookieOptions = (ctx: Context) =>
  ({ httpOnly: true, sameSite: 'lax', secure: ctx.secure, path: PLATFORM_PATH, overwrite: true }) as const;

/**
 * An invitation's link opened by a signed-out browser: whichever way the invitee then signs in or registers (a
 * password, a mailed code, a set-password link, a second factor), their first landing brings them back to it once.
 * The cookie holds the link's own token, only in the browser that opened it, for as long as signing in takes.
 */
const INVITATION_COOKIE = 'ap_invitation';
const INVITATION_RETURN_MS = 2 * 60 * 60 * 1000;
const INVITATION_TOKEN = /^inv_[A-Za-z0-9_-]{43}$/;

export const rememberInvitation = (ctx: Context, token: string): void => {
  if (INVITATION_TOKEN.test(token))
    ctx.cookies.set(INVITATION_COOKIE, token, { ...cookieOptions(ctx), maxAge: INVITATION_RETURN_MS });
};

/** The invitation page to return to, if this browser opened one signed out; the cookie is spent either way. */
export function takeInvitationReturn(ctx: Context): string | undefined {
  const token = ctx.cookies.get(INVITATION_COOKIE);
  if (token === undefined) return undefined;
  ctx.cookies.set(INVITATION_COOKIE, null, cookieOptions(ctx));
  return INVITATION_TOKEN.test(token) ? `${PLATFORM_PATH}/invitation/${token}` : undefined;
}

declare module 'koa' {
  interface DefaultState {
    /** the platform's signed-in webmaster, loaded from the session cookie (loadSession) */
    webmaster?: SignedInWebmaster;
  }
}

export const webmasterOf = (ctx: Context): SignedInWebmaster | undefined => ctx.state.webmaster;

/**
 * The account a request acts on: every website query filters by it (websites.webmaster_id), so tenancy stays in the
 * query. Only routes whose access needs a permission call it, and that check found the account (lib/platform/route-table.ts).
 */
export const accountOf = (ctx: Context): number => webmasterOf(ctx)!.account!.id;

/** Who changes something through the platform, for the audit trail: the signed-in webmaster, from the request's address. */
export const originOf = (ctx: Context): ChangeOrigin => ({
  actor: { type: 'webmaster', id: webmasterOf(ctx)!.id },
  address: ctx.ip,
});

/** Loads the signed-in webmaster (if any) from the session cookie into ctx.state; the session's forms are bound to it. */
export const loadSession =
  (runtime: PlatformServices): Middleware =>
  async (ctx, next) => {
    const id = ctx.cookies.get(COOKIE);
    if (id) {
      const webmaster = await resumeSession(runtime, id, browserOf(ctx));
      if (webmaster) {
        ctx.state.webmaster = webmaster;
        bindCsrf(ctx, `platform-session:${id}`);
      } else ctx.cookies.set(COOKIE, null, cookieOptions(ctx));
    }
    await next();
  };

/** Where a session that is not `full` yet is sent: the one page its stage may reach. */
const SECOND_FACTOR_PAGE = `${PLATFORM_PATH}/signin/second-factor`;
export const ENROL_PAGE = `${PLATFORM_PATH}/account/second-factor`;
const STAGE_PAGE: Record<Exclude<SessionStage, 'full'>, string> = {
  second_factor: SECOND_FACTOR_PAGE,
  enrol: ENROL_PAGE,
};

/**
 * Pages behind sign-in send strangers to the sign-in page, and a session still waiting for its second factor (or,
 * where the operator requires one, for one to be added) to the one page its stage reaches: nothing else is reachable
 * by a password, a mailed code or a reset link alone.
 */
export const requireWebmaster: Middleware = async (ctx, next) => {
  const webmaster = webmasterOf(ctx);
  if (!webmaster) return seeOther(ctx, `${PLATFORM_PATH}/signin`, { noStore: true });
  if (webmaster.stage === 'full' || (webmaster.stage === 'enrol' && ctx.path.startsWith(ENROL_PAGE))) return next();
  seeOther(ctx, STAGE_PAGE[webmaster.stage], { noStore: true });
};

const browserOf = (ctx: Context): SessionBrowser => ({ userAgent: ctx.get('user-agent'), address: ctx.ip });

/** Signs the browser in with a new session id (any previous session of this browser is closed: no fixation). */
async function startSession(
  ctx: Context,
  runtime: PlatformServices,
  webmasterId: number,
  stage: SessionStage,
  accountId: number | null = null,
): Promise<void> {
  await endSession(ctx, runtime);
  ctx.cookies.set(
    COOKIE,
    await openSession(runtime, webmasterId, browserOf(ctx), stage, accountId),
    cookieOptions(ctx),
  );
}

/**
 * The one way a browser is signed in, whatever proved who it is (a password, a mailed code, a set-password link):
 * every sign-in path ends here, so what is still asked after it holds on each of them.
 */
export async function completeSignIn(ctx: Context, runtime: PlatformServices, webmasterId: number): Promise<string> {
  const stage: SessionStage = (await hasSecondFactor(runtime.db, webmasterId))
    ? 'second_factor'
    : runtime.config.webmasters.secondFactorRequired
      ? 'enrol'
      : 'full';
  // Signing in again in a browser already signed in to this webmaster (a fresh sign-in before a sensitive change)
  // keeps the account they were acting on, through the second factor too (advanceSession).
  const current = webmasterOf(ctx);
  await startSession(
    ctx,
    runtime,
    webmasterId,
    stage,
    current?.id === webmasterId ? (current.account?.id ?? null) : null,
  );
  return stage === 'full' ? PLATFORM_LANDING : STAGE_PAGE[stage];
}

/** The second factor was given (or added where one is required): the session is replaced by a full one (a new id). */
export async function advanceSession(ctx: Context, runtime: PlatformServices): Promise<void> {
  // The new id keeps the account the member was acting on: a new session is no reason to send them to their own.
  const { id, account } = webmasterOf(ctx)!;
  await startSession(ctx, runtime, id, 'full', account?.id ?? null);
}

/** The signed-in browser's session id (its cookie's value), to spare it when every other session ends. */
export const sessionIdOf = (ctx: Context): string => ctx.cookies.get(COOKIE) ?? '';

/** Points this browser's session at another of the webmaster's accounts (the caller checked the membership). */
export async function openAccount(ctx: Context, runtime: PlatformServices, accountId: number): Promise<void> {
  const id = ctx.cookies.get(COOKIE);
  if (id) await openAccountInSession(runtime, id, accountId);
}

export async function endSession(ctx: Context, runtime: PlatformServices): Promise<void> {
  const id = ctx.cookies.get(COOKIE);
  if (id) await closeSession(runtime, id);
  ctx.cookies.set(COOKIE, null, cookieOptions(ctx));
  delete ctx.state.webmaster;
}
