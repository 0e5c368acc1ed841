import type { Knex } from 'knex';
import { record } from '../audit/trail.js';
import { SECRET_CHANGED, type ChangeOrigin } from '../changes.js';
import type { Clock } from '../clock.js';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../security/hashing.js';
import { normalizeIdentifier } from '../security/identifiers.js';
import type { Database } from '../store/database.js';
import { revokeApiTokens } from './api-tokens.js';

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

const toWebmaster = (row: WebmasterRow): Webmaster => ({ id: Number(row.id), email: row.email, createdAt: new Date(row.created_at) });

/**
 * Creates a webmaster whose address is proven (a mailed link was used) or vouched for by the operator: every account
 * made is confirmed (migrations/013_webmaster_access.ts). The password, when given, is stored as an scrypt hash only;
 * without one the account has none until a set-password link is used. Emails are stored and compared in their
 * normalised form (normalizeIdentifier), the same the sign-in throttle counts, so one address has one account.
 */
export async function createWebmaster(db: Database | Knex.Transaction, input: { email: string; password?: string }): Promise<Webmaster> {
  const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
  const [row] = await db('webmasters')
    .insert({ email: normalizeIdentifier(input.email), password_hash: passwordHash, email_confirmed_at: db.fn.now() })
    .onConflict('email')
    .ignore()
    .returning<WebmasterRow[]>(WEBMASTER_COLUMNS);
  if (!row) throw new EmailTakenError('a webmaster with this email already exists');
  return toWebmaster(row);
}

export async function findWebmasterByEmail(db: Database | Knex.Transaction, email: string): Promise<Webmaster | undefined> {
  const row = await db('webmasters').where('email', normalizeIdentifier(email)).first<WebmasterRow | undefined>(WEBMASTER_COLUMNS);
  return row ? toWebmaster(row) : undefined;
}

/**
 * The webmaster when email and password match; the same work is done for an unknown email or an account without a
 * password, so timing reveals nothing.
 */
export async function authenticateWebmaster(db: Database, email: string, password: string): Promise<Webmaster | undefined> {
  const row = await db('webmasters').where('email', normalizeIdentifier(email))
    .first<(WebmasterRow & { password_hash: string | null }) | undefined>([...WEBMASTER_COLUMNS, 'password_hash']);
  const valid = await verifyPassword(password, row?.password_hash ?? DUMMY_PASSWORD_HASH);
  return row?.password_hash && valid ? toWebmaster(row) : undefined;
}

/** Replaces the webmaster's password (inside the caller's transaction when given one). */
export async function setPassword(q: Database | Knex.Transaction, webmasterId: number, password: string): Promise<void> {
  await q('webmasters').where('id', webmasterId).update({ password_hash: await hashPassword(password) });
}

/** Removes the webmaster's password: only a set-password link (or a mailed sign-in code) lets anyone in after. */
async function clearPassword(q: Database | Knex.Transaction, webmasterId: number): Promise<void> {
  await q('webmasters').where('id', webmasterId).update({ password_hash: null });
}

/**
 * Records that whoever reads the account's mailbox just proved it (a mailed link or code was used). An account whose
 * address was never proven (registered before addresses were) is taken over by that reader: the credentials someone
 * else may have attached (its password and API token) are removed before it is confirmed, in the
 * caller's transaction. Answers whether it was taken over: the caller then ends the account's sessions too
 * (lib/platform/sessions.ts endSessions), which this domain module does not own.
 */
export async function proveAddress(trx: Knex.Transaction, clock: Clock, webmasterId: number): Promise<boolean> {
  const [row] = await trx('webmasters').where('id', webmasterId).whereNull('email_confirmed_at')
    .update({ email_confirmed_at: clock.now(), password_hash: null }).returning('id');
  if (!row) return false;
  await revokeApiTokens(trx, webmasterId, clock.now());
  return true;
}

/** proveAddress in a transaction of its own (a mailed sign-in code was used). */
export const proveMailbox = (db: Database, clock: Clock, webmasterId: number): Promise<boolean> =>
  db.transaction((trx) => proveAddress(trx, clock, webmasterId));

/** The operator vouches for the account's address (`age-provider webmaster confirm`): confirmed, credentials kept. */
async function vouchForAddress(q: Database | Knex.Transaction, clock: Clock, webmasterId: number): Promise<boolean> {
  const changed = await q('webmasters').where('id', webmasterId).whereNull('email_confirmed_at').update({ email_confirmed_at: clock.now() }).returning('id');
  return changed.length > 0;
}

/** An account change the operator makes at the command line, recorded in the webmaster's audit trail. */
type OperatorAction = 'webmaster.created' | 'webmaster.password.cleared' | 'webmaster.address.confirmed';

const recordAccountChange = (trx: Knex.Transaction, clock: Clock, webmasterId: number, origin: ChangeOrigin, action: OperatorAction, after: Record<string, unknown>) =>
  record(trx, { origin, webmasterId, websiteId: null, at: clock.now(), action, before: null, after });

/**
 * The operator creates an account (`age-provider webmaster create`): confirmed, since the operator vouches for the
 * address, with the password given or none (a set-password link is printed then). Audited.
 */
export async function createWebmasterAsOperator(db: Database, clock: Clock, input: { email: string; password?: string }, origin: ChangeOrigin): Promise<Webmaster> {
  return db.transaction(async (trx) => {
    const webmaster = await createWebmaster(trx, input);
    await recordAccountChange(trx, clock, webmaster.id, origin, 'webmaster.created', { email: webmaster.email, ...(input.password ? { password: SECRET_CHANGED } : {}) });
    return webmaster;
  });
}

/** The operator clears the account's password (`age-provider webmaster reset-password`); the caller ends its sessions. Audited. */
export async function clearPasswordAsOperator(db: Database, clock: Clock, webmasterId: number, origin: ChangeOrigin): Promise<void> {
  await db.transaction(async (trx) => {
    await clearPassword(trx, webmasterId);
    await recordAccountChange(trx, clock, webmasterId, origin, 'webmaster.password.cleared', { password: SECRET_CHANGED });
  });
}

/** The operator vouches for the account's address (`age-provider webmaster confirm`); whether it was unconfirmed. Audited when it was. */
export async function confirmAsOperator(db: Database, clock: Clock, webmasterId: number, origin: ChangeOrigin): Promise<boolean> {
  return db.transaction(async (trx) => {
    const changed = await vouchForAddress(trx, clock, webmasterId);
    if (changed) await recordAccountChange(trx, clock, webmasterId, origin, 'webmaster.address.confirmed', { emailConfirmed: true });
    return changed;
  });
}

