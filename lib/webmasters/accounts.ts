import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../security/hashing.js';
import type { Database } from '../store/database.js';

export interface Webmaster {
  id: number;
  email: string;
  createdAt: Date;
}

export class EmailTakenError extends Error {
  override name = 'EmailTakenError';
}

const normalizeEmail = (email: string): string => email.trim().toLowerCase();

/** Registers a webmaster; the password is stored as an scrypt hash only. */
export async function createWebmaster(db: Database, input: { email: string; password: string }): Promise<Webmaster> {
  const passwordHash = await hashPassword(input.password);
  const rows = await db('webmasters')
    .insert({ email: normalizeEmail(input.email), password_hash: passwordHash })
    .onConflict('email')
    .ignore()
    .returning(['id', 'email', 'created_at']);
  const row = rows[0] as { id: number; email: string; created_at: Date } | undefined;
  if (!row) throw new EmailTakenError('a webmaster with this email already exists');
  return { id: row.id, email: row.email, createdAt: new Date(row.created_at) };
}

export async function findWebmasterByEmail(db: Database, email: string): Promise<Webmaster | undefined> {
  const row = await db('webmasters').where('email', normalizeEmail(email)).first<{ id: number; email: string; created_at: Date } | undefined>();
  return row ? { id: row.id, email: row.email, createdAt: new Date(row.created_at) } : undefined;
}

/** The webmaster when email and password match; the same work is done for an unknown email, so timing reveals nothing. */
export async function authenticateWebmaster(db: Database, email: string, password: string): Promise<Webmaster | undefined> {
  const row = await db('webmasters').where('email', normalizeEmail(email)).first<{ id: number; email: string; created_at: Date; password_hash: string } | undefined>();
  const valid = await verifyPassword(password, row?.password_hash ?? DUMMY_PASSWORD_HASH);
  return row && valid ? { id: row.id, email: row.email, createdAt: new Date(row.created_at) } : undefined;
}
