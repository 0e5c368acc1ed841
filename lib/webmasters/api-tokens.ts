import type { Knex } from 'knex';
import { record } from '../audit/trail.js';
import { SECRET_CHANGED, type ChangeOrigin } from '../changes.js';
import type { Clock } from '../clock.js';
import { Refusal } from '../refusal.js';
import { randomToken, sha256 } from '../security/hashing.js';
import type { Database } from '../store/database.js';

/** Recognisable in logs and by secret scanners. */
export const API_TOKEN_PREFIX = 'avk_';
const TOKEN_SHAPE = /^avk_[A-Za-z0-9_-]{43}$/;
/** The name of a key made without one: `age-provider webmaster token` and the keys from before names existed. */
export const DEFAULT_KEY_NAME = 'API token';
export const MAX_KEY_NAME_LENGTH = 80;
/**
 * A key's last use is written at most this often: the answer's authentication is then one read, and a key used all
 * day costs one write a minute, not one a request (docs/external-api.md "API keys").
 */
export const LAST_USE_RESOLUTION_SECONDS = 60;

export type KeyAccess = 'read' | 'write';

/** What a key may do: read only or read and write, on every website of the account or on one. */
export interface KeyScope {
  access: KeyAccess;
  /** null: every website of the account */
  websiteId: number | null;
  expiresAt: Date | null;
}

/** A key as the account page and the CLI list it: never the key itself. */
export interface ApiKey extends KeyScope {
  id: number;
  name: string;
  /** the member who made it: their key ends when they leave the account */
  memberId: number;
  memberEmail: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** The key of an External API request, once authenticated. */
export interface AuthenticatedKey {
  /** the account (its websites are `websites.webmaster_id = accountId`) */
  accountId: number;
  tokenId: number;
  /** false for a read-only key, and for any key of a member whose role has become read-only (viewer) */
  write: boolean;
  websiteId: number | null;
}

interface KeyRow {
  id: number;
  name: string;
  member_id: number;
  member_email: string;
  read_only: boolean;
  website_id: number | null;
  expires_at: Date | null;
  created_at: Date;
  last_used_at: Date | null;
}

const dateOf = (value: Date | null): Date | null => (value === null ? null : new Date(value));

const toKey = (row: KeyRow): ApiKey => ({
  id: Number(row.id),
  name: row.name,
  memberId: Number(row.member_id),
  memberEmail: row.member_email,
  access: row.read_only ? 'read' : 'write',
  websiteId: row.website_id === null ? null : Number(row.website_id),
  expiresAt: dateOf(row.expires_at),
  createdAt: new Date(row.created_at),
  lastUsedAt: dateOf(row.last_used_at),
});

/** What the audit trail keeps of a key: its scope and name, the key itself only as having been made. */
const audited = (id: number, name: string, scope: KeyScope): Record<string, unknown> => ({
  key: id,
  name,
  access: scope.access,
  website: scope.websiteId,
  expiresAt: scope.expiresAt?.toISOString() ?? null,
  token: SECRET_CHANGED,
});

/**
 * Makes a key for the account on behalf of one of its members; only its SHA-256 is stored, so the key is returned
 * once, to be shown once. A key for one website is refused unless the website is the account's (tenancy in the query).
 */
export async function createApiKey(
  db: Database,
  clock: Clock,
  accountId: number,
  memberId: number,
  input: { name: string } & KeyScope,
  origin: ChangeOrigin,
  replacing = false,
): Promise<{ key: ApiKey; token: string }> {
  const name = input.name.trim();
  if (name.length < 1 || name.length > MAX_KEY_NAME_LENGTH)
    throw new Refusal('invalid', `A key's name has 1 to ${MAX_KEY_NAME_LENGTH} characters.`);
  const now = clock.now();
  if (input.expiresAt && input.expiresAt <= now) throw new Refusal('invalid', 'A key cannot expire in the past.');
  const token = randomToken(32, API_TOKEN_PREFIX);
  const id = await db.transaction(async (trx) => {
    // Makes and replacements of one account's keys wait for each other (a double submit of "replace" revokes once).
    await trx('webmasters').where('id', accountId).forUpdate().first('id');
    if (input.websiteId !== null) {
      const website = await trx('websites').where({ id: input.websiteId, webmaster_id: accountId }).first('id');
      if (!website) throw new Refusal('invalid', "Choose one of the account's websites, or every website.");
    }
    const revoked = replacing ? await revokeWhere(trx, now, { webmaster_id: accountId, name }) : [];
    const [row] = await trx('api_tokens')
      .insert({
        webmaster_id: accountId,
        member_id: memberId,
        name,
        read_only: input.access === 'read',
        website_id: input.websiteId,
        expires_at: input.expiresAt,
        token_hash: sha256(token),
        created_at: now,
      })
      .returning<Array<{ id: number }>>('id');
    await record(trx, {
      origin,
      webmasterId: accountId,
      websiteId: null,
      at: now,
      action: 'api_key.created',
      before: revoked.length > 0 ? { revoked } : null,
      after: audited(Number(row!.id), name, input),
    });
    return Number(row!.id);
  });
  const [key] = (await listApiKeys(db, accountId)).filter((candidate) => candidate.id === id);
  return { key: key!, token };
}

/**
 * The key `age-provider webmaster token` prints: read-write on every website of the account, as the one token of
 * before; it replaces the account's key of the same name, so running the command again rotates it.
 */
export async function issueApiToken(
  db: Database,
  clock: Clock,
  webmasterId: number,
  origin: ChangeOrigin,
  name = DEFAULT_KEY_NAME,
): Promise<string> {
  return (
    await createApiKey(
      db,
      clock,
      webmasterId,
      webmasterId,
      { name, access: 'write', websiteId: null, expiresAt: null },
      origin,
      true,
    )
  ).token;
}

async function revokeWhere(q: Knex.Transaction, now: Date, where: Record<string, unknown>): Promise<number[]> {
  const rows = await q('api_tokens')
    .where(where)
    .whereNull('revoked_at')
    .update('revoked_at', now)
    .returning<Array<{ id: number }>>('id');
  return rows.map((row) => Number(row.id));
}

/** Revokes one of the account's keys: it stops working at once, on every instance (each request reads the table). */
export async function revokeApiKey(
  db: Database,
  clock: Clock,
  accountId: number,
  keyId: number,
  origin: ChangeOrigin,
): Promise<void> {
  await db.transaction(async (trx) => {
    const now = clock.now();
    const revoked = await revokeWhere(trx, now, { webmaster_id: accountId, id: keyId });
    if (revoked.length === 0) throw new Refusal('not_found', 'This key does not exist or was revoked already.');
    await record(trx, {
      origin,
      webmasterId: accountId,
      websiteId: null,
      at: now,
      action: 'api_key.revoked',
      before: { key: keyId },
      after: null,
    });
  });
}

/** The account's keys that are not revoked (an expired one is listed, with its expiry), newest first. */
export async function listApiKeys(db: Database, accountId: number): Promise<ApiKey[]> {
  const rows = await db('api_tokens as k')
    .join('webmasters as m', 'm.id', 'k.member_id')
    .where('k.webmaster_id', accountId)
    .whereNull('k.revoked_at')
    .orderBy('k.id', 'desc')
    .select<KeyRow[]>(
      'k.id',
      'k.name',
      'k.member_id',
      'm.email as member_email',
      'k.read_only',
      'k.website_id',
      'k.expires_at',
      'k.created_at',
      'k.last_used_at',
    );
  return rows.map(toKey);
}

/**
 * The key a request presents, when it still works: not revoked nor expired, its account and its member not disabled,
 * and its member still a member of the account (whose current role caps the key: a viewer's key only reads). All of
 * it is read in the one statement, from the shared database, so a removal or a revocation holds on every instance at
 * once. The lookup is by hash (an index equality on a digest, so the comparison leaks nothing about the token);
 * malformed tokens never reach the database. The last use is written only when the stored one is a minute old.
 */
export async function authenticateApiToken(
  db: Database,
  clock: Clock,
  token: string,
): Promise<AuthenticatedKey | undefined> {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const now = clock.now();
  const row = await db('api_tokens as k')
    .join('webmasters as a', 'a.id', 'k.webmaster_id')
    .join('account_members as m', (on) =>
      on.on('m.account_id', 'k.webmaster_id').andOn('m.webmaster_id', 'k.member_id'),
    )
    .join('webmasters as p', 'p.id', 'k.member_id')
    .where('k.token_hash', sha256(token))
    .whereNull('k.revoked_at')
    .where((expiry) => {
      expiry.whereNull('k.expires_at').orWhere('k.expires_at', '>', now);
    })
    .whereNull('a.disabled_at')
    .whereNull('p.disabled_at')
    .first<
      | {
          id: number;
          webmaster_id: number;
          read_only: boolean;
          website_id: number | null;
          last_used_at: Date | null;
          role: string;
        }
      | undefined
    >('k.id', 'k.webmaster_id', 'k.read_only', 'k.website_id', 'k.last_used_at', 'm.role');
  if (!row) return undefined;
  const stale =
    row.last_used_at === null ||
    now.getTime() - new Date(row.last_used_at).getTime() >= LAST_USE_RESOLUTION_SECONDS * 1000;
  if (stale) await db('api_tokens').where('id', row.id).update('last_used_at', now);
  return {
    accountId: Number(row.webmaster_id),
    tokenId: Number(row.id),
    write: !row.read_only && row.role !== 'viewer',
    websiteId: row.website_id === null ? null : Number(row.website_id),
  };
}

/**
 * Revokes every active key of the account (inside the caller's transaction): an address proven by someone else than
 * whoever registered it takes the account over (lib/webmasters/accounts.ts proveAddress); whether there was one.
 */
export async function revokeApiTokens(q: Knex.Transaction, accountId: number, now: Date): Promise<boolean> {
  return (await revokeWhere(q, now, { webmaster_id: accountId })).length > 0;
}
