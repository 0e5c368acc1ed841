import type { Knex } from 'knex';
import { record } from '../audit/trail.js';
import { SECRET_CHANGED } from '../changes.js';
import { addSeconds, type Clock } from '../clock.js';
import { randomToken, sha256 } from '../security/hashing.js';
import { normalizeIdentifier } from '../security/identifiers.js';
import type { Database } from '../store/database.js';
import { createWebmaster, findWebmasterByEmail, proveAddress, setPassword } from './accounts.js';

/**
 * A mailed link works for thirty minutes: long enough to open the mail, short enough that a mailbox read later, or a
 * link left in a browser's history, is useless by then.
 */
export const MAILED_LINK_SECONDS = 30 * 60;
/** A link the operator prints is handed over by the operator (a chat, a ticket): a day. */
export const OPERATOR_LINK_SECONDS = 24 * 3600;

/** Why the link was made: only the mail's words and the page's heading depend on it. */
export type LinkPurpose = 'register' | 'reset' | 'operator';

export interface PasswordLink {
  email: string;
  purpose: LinkPurpose;
}

/** The platform's page a link opens: the token is its last segment. */
export const passwordLinkUrl = (issuer: string, token: string): string =>
  `${issuer.replace(/\/$/, '')}/platform/password/${token}`;

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * A new single-use link to set the password of the account with `email` (created when the link is used, for a
 * registration). Only its SHA-256 is kept; a new link for the same address replaces the live ones, so only the
 * latest mail works. Spent and expired links are swept here.
 */
export async function issuePasswordLink(
  db: Database,
  clock: Clock,
  email: string,
  purpose: LinkPurpose,
): Promise<string> {
  const token = randomToken(32);
  const now = clock.now();
  const address = normalizeIdentifier(email);
  await db.transaction(async (trx) => {
    await trx('password_links').where('expires_at', '<=', now).orWhereNotNull('used_at').delete();
    await trx('password_links').where('email', address).delete();
    await trx('password_links').insert({
      token_hash: sha256(token),
      email: address,
      purpose,
      created_at: now,
      expires_at: addSeconds(now, purpose === 'operator' ? OPERATOR_LINK_SECONDS : MAILED_LINK_SECONDS),
    });
  });
  return token;
}

/** The live link `token` names, without spending it (the page that asks for the new password). */
export async function findPasswordLink(db: Database, clock: Clock, token: string): Promise<PasswordLink | undefined> {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const row = await db('password_links')
    .where('token_hash', sha256(token))
    .whereNull('used_at')
    .where('expires_at', '>', clock.now())
    .first<PasswordLink | undefined>('email', 'purpose');
  return row && { email: row.email, purpose: row.purpose };
}

/**
 * Spends the link in the caller's transaction: of parallel posts exactly one gets it (a conditional update), the
 * others get undefined, as does an expired, spent or unknown link.
 */
async function spendPasswordLink(
  trx: Knex.Transaction,
  clock: Clock,
  token: string,
): Promise<PasswordLink | undefined> {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const now = clock.now();
  const [row] = await trx('password_links')
    .where('token_hash', sha256(token))
    .whereNull('used_at')
    .where('expires_at', '>', now)
    .update({ used_at: now })
    .returning<PasswordLink[]>(['email', 'purpose']);
  return row && { email: row.email, purpose: row.purpose };
}

/**
 * Uses a link: spends it, finds the account of its address or creates it (a registration), proves the address
 * (taking over an account whose address was never proven: proveAddress), sets the password and records it in the
 * webmaster's audit trail, all or nothing. Answers the account, and undefined for a link that is expired, spent, or
 * was spent by a parallel post. The caller ends the account's sessions: a password set by link is a fresh start.
 */
export async function usePasswordLink(
  db: Database,
  clock: Clock,
  token: string,
  password: string,
  address: string | null,
): Promise<{ id: number; email: string } | undefined> {
  return db.transaction(async (trx) => {
    const link = await spendPasswordLink(trx, clock, token);
    if (!link) return undefined;
    const existing = await findWebmasterByEmail(trx, link.email);
    const webmaster = existing ?? (await createWebmaster(trx, { email: link.email }));
    if (existing) await proveAddress(trx, clock, webmaster.id);
    await setPassword(trx, webmaster.id, password);
    await record(trx, {
      origin: { actor: { type: 'webmaster', id: webmaster.id }, address },
      webmasterId: webmaster.id,
      websiteId: null,
      at: clock.now(),
      action: existing ? 'webmaster.password.reset' : 'webmaster.registered',
      before: null,
      after: { password: SECRET_CHANGED },
    });
    return { id: webmaster.id, email: webmaster.email };
  });
}
