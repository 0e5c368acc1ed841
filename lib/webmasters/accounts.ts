import type { Knex } from 'knex';
import { eraseChains, record } from '../audit/trail.js';
import { SECRET_CHANGED, type ChangeOrigin } from '../changes.js';
import type { Clock } from '../clock.js';
import { Refusal } from '../refusal.js';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../security/hashing.js';
import { normalizeIdentifier } from '../security/identifiers.js';
import type { Database } from '../store/database.js';
import { revokeApiTokens } from './api-tokens.js';
import { removeSecondFactors } from './second-factors.js';

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

const toWebmaster = (row: WebmasterRow): Webmaster => ({
  id: Number(row.id),
  email: row.email,
  createdAt: new Date(row.created_at),
});

/**
 * Creates a webmaster whose address is proven (a mailed link was used) or vouched for by the operator: every account
 * made is confirmed (migrations/013_webmaster_access.ts). The password, when given, is stored as an scrypt hash only;
 * without one the account has none until a set-password link is used. Emails are stored and compared in their
 * normalised form (normalizeIdentifier), the same the sign-in throttle counts, so one address has one account.
 */
export async function createWebmaster(
  db: Database | Knex.Transaction,
  input: { email: string; password?: string },
): Promise<Webmaster> {
  const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
  const [row] = await db('webmasters')
    .insert({ email: normalizeIdentifier(input.email), password_hash: passwordHash, email_confirmed_at: db.fn.now() })
    .onConflict('email')
    .ignore()
    .returning<WebmasterRow[]>(WEBMASTER_COLUMNS);
  if (!row) throw new EmailTakenError('a webmaster with this email already exists');
  return toWebmaster(row);
}

export async function findWebmasterByEmail(
  db: Database | Knex.Transaction,
  email: string,
): Promise<Webmaster | undefined> {
  const row = await db('webmasters')
    .where('email', normalizeIdentifier(email))
    .first<WebmasterRow | undefined>(WEBMASTER_COLUMNS);
  return row ? toWebmaster(row) : undefined;
}

/**
 * The webmaster when email and password match; the same work is done for an unknown email or an account without a
 * password, so timing reveals nothing.
 */
export async function authenticateWebmaster(
  db: Database,
  email: string,
  password: string,
): Promise<Webmaster | undefined> {
  // A disabled account signs in no more than an unknown one (the same answer, the same work).
  const row = await db('webmasters')
    .where('email', normalizeIdentifier(email))
    .whereNull('disabled_at')
    .first<(WebmasterRow & { password_hash: string | null }) | undefined>([...WEBMASTER_COLUMNS, 'password_hash']);
  const valid = await verifyPassword(password, row?.password_hash ?? DUMMY_PASSWORD_HASH);
  return row?.password_hash && valid ? toWebmaster(row) : undefined;
}

/** Whether `password` is the webmaster's current one (false when the account has none); the same work either way. */
export async function checkPassword(db: Database, webmasterId: number, password: string): Promise<boolean> {
  const row = await db('webmasters')
    .where('id', webmasterId)
    .first<{ password_hash: string | null } | undefined>('password_hash');
  const valid = await verifyPassword(password, row?.password_hash ?? DUMMY_PASSWORD_HASH);
  return Boolean(row?.password_hash) && valid;
}

/** Whether the account has a password at all (one the operator created, or one taken over, may not yet). */
export async function hasPassword(db: Database, webmasterId: number): Promise<boolean> {
  const row = await db('webmasters')
    .where('id', webmasterId)
    .first<{ password_hash: string | null } | undefined>('password_hash');
  return Boolean(row?.password_hash);
}

/** The signed-in webmaster changes their password; recorded in their audit trail. The caller ends their other sessions. */
export async function changePassword(
  db: Database,
  clock: Clock,
  webmasterId: number,
  password: string,
  origin: ChangeOrigin,
): Promise<void> {
  const hash = await hashPassword(password);
  await db.transaction(async (trx) => {
    await trx('webmasters').where('id', webmasterId).update({ password_hash: hash });
    await record(trx, {
      origin,
      webmasterId,
      websiteId: null,
      at: clock.now(),
      action: 'webmaster.password.changed',
      before: null,
      after: { password: SECRET_CHANGED },
    });
  });
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
      'w.id',
      'w.email',
      'w.created_at',
      'w.disabled_at',
      db('websites').count('*').where('webmaster_id', db.ref('w.id')).as('websites'),
      db('account_members').count('*').where('account_id', db.ref('w.id')).as('members'),
      db('api_tokens').count('*').where('webmaster_id', db.ref('w.id')).whereNull('revoked_at').as('active_keys'),
    );
  return rows.map((row) => ({
    ...toWebmaster(row),
    disabledAt: row.disabled_at ? new Date(row.disabled_at) : null,
    websites: Number(row.websites),
    members: Number(row.members),
    activeKeys: Number(row.active_keys),
  }));
}

/**
 * Disables or enables an account (the operator's switch). While disabled, its sessions and API keys are refused on
 * every instance (each request reads this column) and its members cannot act on it; whether it changed.
 */
export async function setAccountDisabled(
  db: Database,
  clock: Clock,
  accountId: number,
  disabled: boolean,
  origin: ChangeOrigin,
): Promise<boolean> {
  return db.transaction(async (trx) => {
    const now = clock.now();
    const changed = await trx('webmasters')
      .where('id', accountId)
      .modify((query) => {
        if (disabled) query.whereNull('disabled_at');
        else query.whereNotNull('disabled_at');
      })
      .update('disabled_at', disabled ? now : null)
      .returning('id');
    if (changed.length === 0) {
      if (!(await trx('webmasters').where('id', accountId).first('id')))
        throw new Refusal('not_found', `No webmaster has the id ${accountId}.`);
      return false;
    }
    await record(trx, {
      origin,
      webmasterId: accountId,
      websiteId: null,
      at: now,
      action: disabled ? 'account.disabled' : 'account.enabled',
      before: null,
      after: null,
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
export async function closeAccount(
  db: Database,
  clock: Clock,
  accountId: number,
): Promise<{ websites: number; chains: number }> {
  return db.transaction(async (trx) => {
    const account = await trx('webmasters').where('id', accountId).forUpdate().first('id');
    if (!account) throw new Refusal('not_found', `No webmaster has the id ${accountId}.`);
    // Counted from the rows: a bare delete() answers a result object, not a count, on the embedded database.
    const websites = (await trx('websites').where('webmaster_id', accountId).delete().returning('id')).length;
    const chains = await eraseChains(trx, accountId, clock.now());
    await trx('webmasters').where('id', accountId).delete();
    return { websites, chains };
  });
}

/** Replaces the webmaster's password (inside the caller's transaction when given one). */
export async function setPassword(
  q: Database | Knex.Transaction,
  webmasterId: number,
  password: string,
): Promise<void> {
  await q('webmasters')
    .where('id', webmasterId)
    .update({ password_hash: await hashPassword(password) });
}

/** Removes the webmaster's password: only a set-password link (or a mailed sign-in code) lets anyone in after. */
async function clearPassword(q: Database | Knex.Transaction, webmasterId: number): Promise<void> {
  await q('webmasters').where('id', webmasterId).update({ password_hash: null });
}

/**
 * Records that whoever reads the account's mailbox just proved it (a mailed link or code was used). An account whose
 * address was never proven (registered before addresses were) is taken over by that reader: the credentials someone
 * else may have attached (its password, API keys, second factors, other members and pending invitations) are removed before it is confirmed, in the
 * caller's transaction. Answers whether it was taken over: the caller then ends the account's sessions too
 * (lib/platform/sessions.ts endSessions), which this domain module does not own.
 */
export async function proveAddress(trx: Knex.Transaction, clock: Clock, webmasterId: number): Promise<boolean> {
  const [row] = await trx('webmasters')
    .where('id', webmasterId)
    .whereNull('email_confirmed_at')
    .update({ email_confirmed_at: clock.now(), password_hash: null })
    .returning('id');
  if (!row) return false;
  await revokeApiTokens(trx, webmasterId, clock.now());
  await removeSecondFactors(trx, webmasterId);
  // Whoever held the address before may have let others in (docs/team.md): the account goes back to its founder alone.
  await trx('account_members').where('account_id', webmasterId).whereNot('webmaster_id', webmasterId).delete();
  await trx('account_members').where({ account_id: webmasterId, webmaster_id: webmasterId }).update({ role: 'owner' });
  await trx('account_invitations').where('account_id', webmasterId).whereNull('accepted_at').delete();
  return true;
}

/** proveAddress in a transaction of its own (a mailed sign-in code was used). */
export const proveMailbox = (db: Database, clock: Clock, webmasterId: number): Promise<boolean> =>
  db.transaction((trx) => proveAddress(trx, clock, webmasterId));

/** The operator vouches for the account's address (`age-provider webmaster confirm`): confirmed, credentials kept. */
async function vouchForAddress(q: Database | Knex.Transaction, clock: Clock, webmasterId: number): Promise<boolean> {
  const changed = await q('webmasters')
    .where('id', webmasterId)
    .whereNull('email_confirmed_at')
    .update({ email_confirmed_at: clock.now() })
    .returning('id');
  return changed.length > 0;
}

/** An account change the operator makes at the command line, recorded in the webmaster's audit trail. */
type OperatorAction = 'webmaster.created' | 'webmaster.password.cleared' | 'webmaster.address.confirmed';

const recordAccountChange = (
  trx: Knex.Transaction,
  clock: Clock,
  webmasterId: number,
  origin: ChangeOrigin,
  action: OperatorAction,
  after: Record<string, unknown>,
) => record(trx, { origin, webmasterId, websiteId: null, at: clock.now(), action, before: null, after });

/**
 * The operator creates an account (`age-provider webmaster create`): confirmed, since the operator vouches for the
 * address, with the password given or none (a set-password link is printed then). Audited.
 */
export async function createWebmasterAsOperator(
  db: Database,
  clock: Clock,
  input: { email: string; password?: string },
  origin: ChangeOrigin,
): Promise<Webmaster> {
  return db.transaction(async (trx) => {
    const webmaster = await createWebmaster(trx, input);
    await recordAccountChange(trx, clock, webmaster.id, origin, 'webmaster.created', {
      email: webmaster.email,
      ...(input.password ? { password: SECRET_CHANGED } : {}),
    });
    return webmaster;
  });
}

/** The operator clears the account's password (`age-provider webmaster reset-password`); the caller ends its sessions. Audited. */
export async function clearPasswordAsOperator(
  db: Database,
  clock: Clock,
  webmasterId: number,
  origin: ChangeOrigin,
): Promise<void> {
  await db.transaction(async (trx) => {
    await clearPassword(trx, webmasterId);
    await recordAccountChange(trx, clock, webmasterId, origin, 'webmaster.password.cleared', {
      password: SECRET_CHANGED,
    });
  });
}

/** The operator vouches for the account's address (`age-provider webmaster confirm`); whether it was unconfirmed. Audited when it was. */
export async function confirmAsOperator(
  db: Database,
  clock: Clock,
  webmasterId: number,
  origin: ChangeOrigin,
): Promise<boolean> {
  return db.transaction(async (trx) => {
    const changed = await vouchForAddress(trx, clock, webmasterId);
    if (changed)
      await recordAccountChange(trx, clock, webmasterId, origin, 'webmaster.address.confirmed', {
        emailConfirmed: true,
      });
    return changed;
  });
}
