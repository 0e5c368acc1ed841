import type { Knex } from 'knex';
import { record } from '../audit/trail.js';
import { SECRET_CHANGED, type ChangeOrigin } from '../changes.js';
import type { Clock } from '../clock.js';
import { randomToken, sha256 } from '../security/hashing.js';
import type { Database } from '../store/database.js';

/** Recognisable in logs and by secret scanners. */
export const API_TOKEN_PREFIX = 'avk_';
const TOKEN_SHAPE = /^avk_[A-Za-z0-9_-]{43}$/;

/**
 * Generates the webmaster's API token, revoking the previous one in the same transaction (one active token each).
 * Only its SHA-256 is stored: the token is returned once, to be shown once.
 */
export async function issueApiToken(db: Database, clock: Clock, webmasterId: number, origin: ChangeOrigin): Promise<string> {
  const token = randomToken(32, API_TOKEN_PREFIX);
  const now = clock.now();
  await db.transaction(async (trx) => {
    // Concurrent generations (a double submit) wait for each other here instead of both finding no active token
    // and colliding on the one-active-token index.
    await trx('webmasters').where('id', webmasterId).forUpdate().first('id');
    const revoked = await revokeApiTokens(trx, webmasterId, now);
    await trx('api_tokens').insert({ webmaster_id: webmasterId, token_hash: sha256(token), created_at: now });
    await record(trx, {
      origin, webmasterId, websiteId: null, at: now, action: 'api_token.issued',
      before: revoked ? { token: 'revoked' } : null, after: { token: SECRET_CHANGED },
    });
  });
  return token;
}

/**
 * The webmaster id an active token belongs to, recording its use. The lookup is by hash (an index equality on a
 * digest, so the comparison leaks nothing about the token), and malformed tokens never reach the database.
 */
export async function authenticateApiToken(db: Database, clock: Clock, token: string): Promise<{ webmasterId: number; tokenId: number } | undefined> {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const [row] = await db('api_tokens')
    .where('token_hash', sha256(token))
    .whereNull('revoked_at')
    .update('last_used_at', clock.now())
    .returning<Array<{ id: number; webmaster_id: number }>>(['id', 'webmaster_id']);
  return row && { webmasterId: row.webmaster_id, tokenId: row.id };
}

/** Revokes the webmaster's active token, if any (inside the caller's transaction when given one); whether there was one. */
export async function revokeApiTokens(q: Database | Knex.Transaction, webmasterId: number, now: Date): Promise<boolean> {
  const revoked = await q('api_tokens').where('webmaster_id', webmasterId).whereNull('revoked_at').update('revoked_at', now).returning('id');
  return revoked.length > 0;
}

/** When the active token was generated and last used, for the account page (never the token itself). */
export async function describeApiToken(db: Database, webmasterId: number): Promise<{ createdAt: Date; lastUsedAt: Date | null } | undefined> {
  const row = await db('api_tokens').where('webmaster_id', webmasterId).whereNull('revoked_at')
    .first<{ created_at: Date; last_used_at: Date | null } | undefined>('created_at', 'last_used_at');
  return row ? { createdAt: new Date(row.created_at), lastUsedAt: row.last_used_at ? new Date(row.last_used_at) : null } : undefined;
}
