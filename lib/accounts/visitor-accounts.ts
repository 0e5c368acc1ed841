import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../security/hashing.js';
import type { Database } from '../store/database.js';

/** A visitor's account for the login flow: a username they chose (never an email) and an scrypt password hash. */
export interface VisitorAccount {
  id: number;
  username: string;
}

export class UsernameTakenError extends Error {
  override name = 'UsernameTakenError';
}

/** A username the visitor chooses (not an email: no @), easy to type and to tell apart; spaces around it are ignored. */
export const USERNAME_PATTERN = '^\\s*[A-Za-z0-9._-]{3,32}\\s*$';
export const MIN_PASSWORD_LENGTH = 10;

/** Usernames compare case-insensitively (a unique index on lower(username)); spaces around them are dropped. */
export const normalizeUsername = (username: string): string => username.trim();

/** The one key per account whatever the case typed, e.g. for rate limits (matches the lower(username) index). */
export const usernameKey = (username: string): string => normalizeUsername(username).toLowerCase();

export async function createVisitorAccount(db: Database, input: { username: string; password: string }): Promise<VisitorAccount> {
  const passwordHash = await hashPassword(input.password);
  const rows = await db.raw<{ rows: Array<{ id: number; username: string }> }>(
    // The unique index is on an expression, so the conflict target must name it that way.
    'INSERT INTO visitor_accounts (username, password_hash) VALUES (?, ?) ON CONFLICT ((lower(username))) DO NOTHING RETURNING id, username',
    [normalizeUsername(input.username), passwordHash],
  );
  const row = rows.rows[0];
  if (!row) throw new UsernameTakenError('this username is taken');
  return { id: row.id, username: row.username };
}

/**
 * The account when username and password match. An unknown username costs the same scrypt work against a
 * dummy hash, so neither the answer nor its timing tells which usernames exist.
 */
export async function authenticateVisitor(db: Database, username: string, password: string): Promise<VisitorAccount | undefined> {
  const row = await db('visitor_accounts')
    .whereRaw('lower(username) = lower(?)', [normalizeUsername(username)])
    .first<{ id: number; username: string; password_hash: string } | undefined>();
  const valid = await verifyPassword(password, row?.password_hash ?? DUMMY_PASSWORD_HASH);
  return row && valid ? { id: row.id, username: row.username } : undefined;
}
