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
  /**
   * The account the session acts on and the role the webmaster holds there, read with the session from the shared
   * database: a role changed or a membership ended holds on the next request, on every instance. Absent when the
   * session's account is no longer one of theirs (or is disabled).
   */
  account?: { id: number; email: string; role: Role };
}

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
export async function openSession(runtime: Pick<PlatformServices, 'db' | 'clock'>, webmasterId: number, browser: SessionBrowser): Promise<string> {
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
  });
  return id;
}

/** The session's webmaster when it is alive, extending its idle expiry (never past the absolute one). */
export async function resumeSession(runtime: Pick<PlatformServices, 'db' | 'clock'>, id: string, browser: SessionBrowser): Promise<SignedInWebmaster | undefined> {
  const now = runtime.clock.now();
  const { db } = runtime;
  const row = await db('platform_sessions as s')
    .join('webmasters as w', 'w.id', 's.webmaster_id')
    .leftJoin('account_members as m', (on) => on.on('m.webmaster_id', 's.webmaster_id').andOn('m.account_id', db.raw('coalesce(s.account_id, s.webmaster_id)')))
    .leftJoin('webmasters as a', (on) => on.on('a.id', 'm.account_id').andOnNull('a.disabled_at'))
    .where('s.id_hash', sha256(id))
    .where('s.expires_at', '>', now)
    .whereNull('w.disabled_at')
    .first<{ webmaster_id: number; email: string; created_at: Date; account_id: number | null; account_email: string | null; role: Role | null } | undefined>(
      's.webmaster_id', 'w.email', 's.created_at', 'a.id as account_id', 'a.email as account_email', 'm.role',
    );
  if (!row) return undefined;
  const absolute = addSeconds(new Date(row.created_at), SESSION_ABSOLUTE_SECONDS);
  if (absolute <= now) return undefined;
  const idle = addSeconds(now, SESSION_IDLE_SECONDS);
  // The same statement that extends it records the request for the session list: no statement more per request.
  await db('platform_sessions').where('id_hash', sha256(id))
    .update({ expires_at: idle < absolute ? idle : absolute, last_seen_at: now, address: browser.address, user_agent: browser.userAgent.slice(0, MAX_USER_AGENT) });
  const account = row.account_id !== null && row.account_email !== null && row.role !== null
    ? { id: Number(row.account_id), email: row.account_email, role: row.role }
    : undefined;
  return { id: row.webmaster_id, email: row.email, ...(account ? { account } : {}) };
}

/** Points the session at another account the webmaster belongs to (the caller checked the membership). */
export async function openAccountInSession(runtime: Pick<PlatformServices, 'db'>, id: string, accountId: number): Promise<void> {
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
export async function endSessions(db: PlatformServices['db'], webmasterId: number, options: { except?: string } = {}): Promise<number> {
  const query = db('platform_sessions').where('webmaster_id', webmasterId);
  if (options.except !== undefined) query.whereNot('id_hash', sha256(options.except));
  return (await query.delete().returning<Array<{ id_hash: string }>>('id_hash')).length;
}
