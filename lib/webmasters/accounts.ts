import { eraseChains, record } from '../audit/trail.js';
import type { ChangeOrigin } from '../changes.js';
import type { Clock } from '../clock.js';
import { Refusal } from '../refusal.js';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../security/hashing.js';
import { normalizeIdentifier } from '../security/identifiers.js';
import type { Database } from '../store/database.js';

export interface Webmaster {
  id: number;
  email: string;
  createdAt: Date;
}

export class EmailTakenError extends Error {
  override name = 'EmailTakenError';
}

interface WebmasterRow {
  id: number;
  email: string;
  created_at: Date;
}

const WEBMASTER_COLUMNS = ['id', 'email', 'created_at'];

const toWebmaster = (row: WebmasterRow): Webmaster => ({ id: row.id, email: row.email, createdAt: new Date(row.created_at) });

/**
 * Registers a webmaster; the password is stored as an scrypt hash only. Emails are stored and compared in their
 * normalised form (normalizeIdentifier), the same the sign-in throttle counts, so one address has one account.
 */
export async function createWebmaster(db: Database, input: { email: string; password: string }): Promise<Webmaster> {
  const passwordHash = await hashPassword(input.password);
  const [row] = await db('webmasters')
    .insert({ email: normalizeIdentifier(input.email), password_hash: passwordHash })
    .onConflict('email')
    .ignore()
    .returning<WebmasterRow[]>(WEBMASTER_COLUMNS);
  if (!row) throw new EmailTakenError('a webmaster with this email already exists');
  return toWebmaster(row);
}

export async function findWebmasterByEmail(db: Database, email: string): Promise<Webmaster | undefined> {
  const row = await db('webmasters').where('email', normalizeIdentifier(email)).first<WebmasterRow | undefined>(WEBMASTER_COLUMNS);
  return row ? toWebmaster(row) : undefined;
}

/** The webmaster when email and password match; the same work is done for an unknown email, so timing reveals nothing. */
export async function authenticateWebmaster(db: Database, email: string, password: string): Promise<Webmaster | undefined> {
  // A disabled account signs in no more than an unknown one (the same answer, the same work).
  const row = await db('webmasters').where('email', normalizeIdentifier(email)).whereNull('disabled_at')
    .first<(WebmasterRow & { password_hash: string }) | undefined>([...WEBMASTER_COLUMNS, 'password_hash']);
  const valid = await verifyPassword(password, row?.password_hash ?? DUMMY_PASSWORD_HASH);
  return row && valid ? toWebmaster(row) : undefined;
}

/** An account as the operator's CLI lists it. */
export interface AccountSummary extends Webmaster {
  disabledAt: Date | null;
  websites: number;
  members: number;
  activeKeys: number;
}

/** Every account (a webmaster is one), oldest first, with what it holds. */
export async function listAccounts(db: Database, only?: number): Promise<AccountSummary[]> {
  const rows = await db('webmasters as w')
    .modify((query) => {
      if (only !== undefined) query.where('w.id', only);
    })
    .orderBy('w.id')
    .select<Array<WebmasterRow & { disabled_at: Date | null; websites: number; members: number; active_keys: number }>>(
      'w.id', 'w.email', 'w.created_at', 'w.disabled_at',
      db('websites').count('*').where('webmaster_id', db.ref('w.id')).as('websites'),
      db('account_members').count('*').where('account_id', db.ref('w.id')).as('members'),
      db('api_tokens').count('*').where('webmaster_id', db.ref('w.id')).whereNull('revoked_at').as('active_keys'),
    );
  return rows.map((row) => ({
    ...toWebmaster(row), disabledAt: row.disabled_at ? new Date(row.disabled_at) : null,
    websites: Number(row.websites), members: Number(row.members), activeKeys: Number(row.active_keys),
  }));
}

/**
 * Disables or enables an account (the operator's switch). While disabled, its sessions and API keys are refused on
 * every instance (each request reads this column) and its members cannot act on it; whether it changed.
 */
export async function setAccountDisabled(db: Database, clock: Clock, accountId: number, disabled: boolean, origin: ChangeOrigin): Promise<boolean> {
  return db.transaction(async (trx) => {
    const now = clock.now();
    const changed = await trx('webmasters').where('id', accountId)
      .modify((query) => (disabled ? query.whereNull('disabled_at') : query.whereNotNull('disabled_at')))
      .update('disabled_at', disabled ? now : null).returning('id');
    if (changed.length === 0) {
      if (!(await trx('webmasters').where('id', accountId).first('id'))) throw new Refusal('not_found', `No webmaster has the id ${accountId}.`);
      return false;
    }
    await record(trx, {
      origin, webmasterId: accountId, websiteId: null, at: now, action: disabled ? 'account.disabled' : 'account.enabled', before: null, after: null,
    });
    return true;
  });
}

/**
 * Closes an account (docs/decisions/team.md "Closing an account"): its websites (with their clients, keys, webhooks and
 * statistics), members, invitations, keys and sessions are deleted, and with the account's row its founding login's
 * personal data (address, password). Each of its audit chains is cut to a tombstone that names no person and still
 * verifies (lib/audit/trail.ts eraseChains).
 */
export async function closeAccount(db: Database, clock: Clock, accountId: number): Promise<{ websites: number; chains: number }> {
  return db.transaction(async (trx) => {
    const account = await trx('webmasters').where('id', accountId).forUpdate().first('id');
    if (!account) throw new Refusal('not_found', `No webmaster has the id ${accountId}.`);
    const websites = await trx('websites').where('webmaster_id', accountId).delete();
    const chains = await eraseChains(trx, accountId, clock.now());
    await trx('webmasters').where('id', accountId).delete();
    return { websites, chains };
  });
}
