import { addSeconds } from '../clock.js';
import type { PlatformServices } from './services.js';
import { randomToken, sha256 } from '../security/hashing.js';
import type { Role } from '../webmasters/roles.js';

/** A session ends after this long without a request... */
export const SESSION_IDLE_SECONDS = 2 * 3600;
/** ...and at the latest this long after sign-in, however active. */
export const SESSION_ABSOLUTE_SECONDS = 12 * 3600;

export interface SignedInWebmaster {
  id: number;
  email: string;
  /** when this session was opened: a password change within minutes of it needs no current password */
  signedInAt: Date;
  /** what the session may reach: everything, only the second factor's page, or only adding a second factor */
  stage: SessionStage;
  /**
   * The account the session acts on and the role the webmaster holds there, read with the session from the shared
   * database: a role changed or a membership ended holds on the next request, on every instance. Absent when the
   * session's account is no longer one of theirs (or is disabled).
   */
  account?: { id: number; email: string; role: Role };
}

/** `full`; `second_factor`: the password (or code, or link) was right and the second factor is asked; `enrol`: the operator requires a second factor and the account has none. */
export type SessionStage = 'full' | 'second_factor' | 'enrol';

/** Wrong second-factor codes a waiting session survives; the next one ends it (the password is asked again, behind its guard). */
export const SECOND_FACTOR_ATTEMPTS = 5;

/** What the session list shows of the browser a session belongs to, as its latest request told. */
export interface SessionBrowser {
  userAgent: string;
  address: string;
}

/** A User-Agent header is kept to this length: enough to name a browser, never a large row per request. */
const MAX_USER_AGENT = 300;

/**
 * Opens a session for the webmaster and returns its id, which only the browser's cookie holds (the table keeps
 * its SHA-256). Expired sessions are swept here, so the table never grows beyond the live ones.
 */
export async function openSession(
  runtime: Pick<PlatformServices, 'db' | 'clock'>,
  webmasterId: number,
  browser: SessionBrowser,
  stage: SessionStage,
  accountId: number | null = null,
): Promise<string> {
  const id = randomToken(32);
  const now = runtime.clock.now();
  await runtime.db('platform_sessions').where('expires_at', '<=', now).delete();
  await runtime.db('platform_sessions').insert({
    id_hash: sha256(id),
    webmaster_id: webmasterId,
    created_at: now,
    expires_at: addSeconds(now, SESSION_IDLE_SECONDS),
    last_seen_at: now,
    user_agent: browser.userAgent.slice(0, MAX_USER_AGENT),
    address: browser.address,
    stage,
    account_id: accountId,
  });
  return id;
}

/** The session's webmaster when it is alive, extending its idle expiry (never past the absolute one). */
export async function resumeSession(
  runtime: Pick<PlatformServices, 'db' | 'clock'>,
  id: string,
  browser: SessionBrowser,
): Promise<SignedInWebmaster | undefined> {
  const now = runtime.clock.now();
  const { db } = runtime;
  const row = await db('platform_sessions as s')
    .join('webmasters as w', 'w.id', 's.webmaster_id')
    .leftJoin('account_members as m', (on) =>
      on.on('m.webmaster_id', 's.webmaster_id').andOn('m.account_id', db.raw('coalesce(s.account_id, s.webmaster_id)')),
    )
    .leftJoin('webmasters as a', (on) => on.on('a.id', 'm.account_id').andOnNull('a.disabled_at'))
    .where('s.id_hash', sha256(id))
    .where('s.expires_at', '>', now)
    .whereNull('w.disabled_at')
    .first<
      | {
          webmaster_id: number;
          email: string;
          created_at: Date;
          account_id: number | null;
          account_email: string | null;
          role: Role | null;
          stage: SessionStage;
        }
      | undefined
    >(
      's.webmaster_id',
      'w.email',
      's.created_at',
      'a.id as account_id',
      'a.email as account_email',
      'm.role',
      's.stage',
    );
  if (!row) return undefined;
  const absolute = addSeconds(new Date(row.created_at), SESSION_ABSOLUTE_SECONDS);
  if (absolute <= now) return undefined;
  const idle = addSeconds(now, SESSION_IDLE_SECONDS);
  // The same statement that extends it records the request for the session list: no statement more per request.
  await db('platform_sessions')
    .where('id_hash', sha256(id))
    .update({
      expires_at: idle < absolute ? idle : absolute,
      last_seen_at: now,
      address: browser.address,
      user_agent: browser.userAgent.slice(0, MAX_USER_AGENT),
    });
  const account =
    row.account_id !== null && row.account_email !== null && row.role !== null
      ? { id: Number(row.account_id), email: row.account_email, role: row.role }
      : undefined;
  return {
    id: Number(row.webmaster_id),
    email: row.email,
    signedInAt: new Date(row.created_at),
    stage: row.stage,
    ...(account ? { account } : {}),
  };
}

/** Points the session at another account the webmaster belongs to (the caller checked the membership). */
export async function openAccountInSession(
  runtime: Pick<PlatformServices, 'db'>,
  id: string,
  accountId: number,
): Promise<void> {
  await runtime.db('platform_sessions').where('id_hash', sha256(id)).update('account_id', accountId);
}

export async function closeSession(runtime: Pick<PlatformServices, 'db'>, id: string): Promise<void> {
  await runtime.db('platform_sessions').where('id_hash', sha256(id)).delete();
}

/**
 * Ends every platform session of the webmaster, except the one whose id (the cookie's value) is `except`, and
 * answers how many ended. Sessions are rows checked on every request (resumeSession), so the sign-out holds on every
 * instance at the next request. For whatever must cut a webmaster's access at once: a password change (every other
 * session), a member removed or an account disabled (all of them).
 */
export async function endSessions(
  db: PlatformServices['db'],
  webmasterId: number,
  options: { except?: string } = {},
): Promise<number> {
  const query = db('platform_sessions').where('webmaster_id', webmasterId);
  if (options.except !== undefined) query.whereNot('id_hash', sha256(options.except));
  return (await query.delete().returning<Array<{ id_hash: string }>>('id_hash')).length;
}

/** A session as its account's session list shows it. */
export interface SessionSummary {
  /** names the session in the list's forms: the digest the table keys it by, never the cookie's value */
  key: string;
  userAgent: string;
  address: string | null;
  signedInAt: Date;
  lastSeenAt: Date;
  current: boolean;
}

/** The webmaster's live sessions, the most recently used first; `current` marks the one whose id is `currentId`. */
export async function listSessions(
  runtime: Pick<PlatformServices, 'db' | 'clock'>,
  webmasterId: number,
  currentId: string,
): Promise<SessionSummary[]> {
  const rows = await runtime
    .db('platform_sessions')
    .where('webmaster_id', webmasterId)
    .where('expires_at', '>', runtime.clock.now())
    .orderBy([
      { column: 'last_seen_at', order: 'desc' },
      { column: 'created_at', order: 'desc' },
    ])
    .select<
      Array<{
        id_hash: string;
        user_agent: string | null;
        address: string | null;
        created_at: Date;
        last_seen_at: Date | null;
      }>
    >('id_hash', 'user_agent', 'address', 'created_at', 'last_seen_at');
  const current = sha256(currentId);
  return rows.map((row) => ({
    key: row.id_hash,
    userAgent: row.user_agent ?? '',
    address: row.address,
    signedInAt: new Date(row.created_at),
    lastSeenAt: new Date(row.last_seen_at ?? row.created_at),
    current: row.id_hash === current,
  }));
}

/** Ends the webmaster's session named by its list key (tenancy in the query: another account's key ends nothing). */
export async function endSessionByKey(db: PlatformServices['db'], webmasterId: number, key: string): Promise<boolean> {
  return (
    (await db('platform_sessions').where({ webmaster_id: webmasterId, id_hash: key }).delete().returning('id_hash'))
      .length > 0
  );
}

/**
 * Counts a wrong second-factor code against the waiting session; at the last allowed one the session is ended.
 * Answers whether it is still alive.
 */
export async function countFactorAttempt(db: PlatformServices['db'], id: string): Promise<boolean> {
  const [row] = await db('platform_sessions')
    .where('id_hash', sha256(id))
    .where('stage', 'second_factor')
    .update({ factor_attempts: db.raw('factor_attempts + 1') })
    .returning<Array<{ factor_attempts: number }>>('factor_attempts');
  if (row && row.factor_attempts < SECOND_FACTOR_ATTEMPTS) return true;
  await db('platform_sessions').where('id_hash', sha256(id)).delete();
  return false;
}
