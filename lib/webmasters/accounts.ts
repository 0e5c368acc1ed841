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
  const row = await db('webmasters').where('email', normalizeIdentifier(email))
    .first<(WebmasterRow & { password_hash: string }) | undefined>([...WEBMASTER_COLUMNS, 'password_hash']);
  const valid = await verifyPassword(password, row?.password_hash ?? DUMMY_PASSWORD_HASH);
  return row && valid ? toWebmaster(row) : undefined;
}
