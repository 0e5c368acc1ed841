import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../security/hashing.js';
import { normalizeIdentifier } from '../security/identifiers.js';
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
export const VISITOR_MIN_PASSWORD_LENGTH = 10;

/** A username is stored as typed, without the spaces around it (USERNAME_PATTERN allows them). */
const storedUsername = (username: string): string => username.trim();

/**
 * Creates an account; `seed` runs in the same transaction with the new account (e.g. to give it a result), and
 * whatever it throws undoes the account. The scrypt work is done before the transaction opens.
 */
export async function createVisitorAccount(
  db: Database,
  input: { username: string; password: string },
  seed: (trx: Database, account: VisitorAccount) => Promise<void> = async () => {},
): Promise<VisitorAccount> {
  const passwordHash = await hashPassword(input.password);
  return db.transaction(async (trx) => {
    const rows = await trx.raw<{ rows: Array<{ id: number; username: string }> }>(
      // The unique index is on an expression, so the conflict target must name it that way.
      'INSERT INTO visitor_accounts (username, password_hash) VALUES (?, ?) ON CONFLICT ((lower(username))) DO NOTHING RETURNING id, username',
      [storedUsername(input.username), passwordHash],
    );
    const row = rows.rows[0];
    if (!row) throw new UsernameTakenError('this username is taken');
    const account = { id: row.id, username: row.username };
    await seed(trx, account);
    return account;
  });
}

/**
 * The account when username and password match. An unknown username costs the same scrypt work against a
 * dummy hash, so neither the answer nor its timing tells which usernames exist.
 *
 * The username typed is looked up in the form the sign-in throttle counts it (normalizeIdentifier). Stored
 * usernames are ASCII (USERNAME_PATTERN), where that form is plain lower case: the unique lower(username) index;
 * a spelling that normalises to anything else (`İ` → `i̇`) matches no account.
 */
export async function authenticateVisitor(
  db: Database,
  username: string,
  password: string,
): Promise<VisitorAccount | undefined> {
  const row = await db('visitor_accounts')
    .whereRaw('lower(username) = ?', [normalizeIdentifier(username)])
    .first<{ id: number; username: string; password_hash: string } | undefined>();
  const valid = await verifyPassword(password, row?.password_hash ?? DUMMY_PASSWORD_HASH);
  return row && valid ? { id: row.id, username: row.username } : undefined;
}
