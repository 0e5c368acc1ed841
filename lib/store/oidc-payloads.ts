import type { AdapterConstructor, AdapterPayload } from 'oidc-provider';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { addSeconds, epochSeconds } from '../clock.js';
import { sha256 } from '../security/hashing.js';
import type { Database } from './database.js';
import type { PreparedStatement } from './prepared.js';

/**
 * The table oidc-provider's models live in (every model but Client), keyed by (type, id): its row shape and the
 * statement fragments shared by the adapter (adapters/knex.ts), the flow's combined statements
 * (lib/oauth2/flow-storage.ts) and Resources (lib/verification/verifications.ts).
 */
export const PAYLOADS_TABLE = 'oidc_payloads';

/** What the storage oidc-provider runs on is built from (the process's entry point gives the factory: adapters/knex.ts). */
export interface OidcAdapterOptions {
  db: Database;
  /** decides expiry (stored expires_at, hidden rows, the sweeper) so tests can move time */
  clock: Clock;
  log: Logger;
  /** milliseconds between two sweeps of expired rows */
  sweepIntervalMs?: number;
  /** what must read the expired rows before each sweep deletes them (the flows that expired: lib/verification/flow-endings.ts) */
  beforeSweep?(now: Date): Promise<void>;
  /** registers the sweeper's stop with the owner's shutdown */
  onClose(task: () => Promise<void>): void;
}

/** oidc-provider's storage: an Adapter class over `oidc_payloads`. */
export type OidcAdapterFactory = (options: OidcAdapterOptions) => AdapterConstructor;

/** A row as written: one model's save. */
export interface PayloadRow {
  type: string;
  id: string;
  /** JSON text */
  payload: string;
  grant_id: string | null;
  uid: string | null;
  user_code: string | null;
  expires_at: Date | null;
}

/** A row as read: `consumed` is kept in its own column (the atomic guard of single use). */
export interface StoredPayload {
  payload: AdapterPayload;
  consumed_at: Date | string | null;
}

/**
 * Bearer secrets (their id is the value a client presents) are only ever checked, never looked up by uid: the table
 * keeps their SHA-256 and no `jti`, so a leaked database holds no usable code or token. A find puts the jti back.
 */
const HASHED_TYPES = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken']);

export const isHashedType = (type: string): boolean => HASHED_TYPES.has(type);

/** The key a bearer secret is stored under (Resources looks access tokens up by it in its one statement). */
export const storedKey = (bearerValue: string): string => sha256(bearerValue);

/** The key model `type` stores `id` under. */
export const keyOf = (type: string, id: string): string => (isHashedType(type) ? storedKey(id) : id);

/** The row one save of model `type` writes, its expiry counted from `now`. */
export function payloadRow(
  type: string,
  id: string,
  payload: AdapterPayload,
  expiresIn: number | undefined,
  now: Date,
): PayloadRow {
  const { jti: _jti, ...withoutJti } = payload;
  return {
    type,
    id: keyOf(type, id),
    payload: JSON.stringify(isHashedType(type) ? withoutJti : payload),
    grant_id: payload.grantId ?? null,
    uid: payload.uid ?? null,
    user_code: payload.userCode ?? null,
    expires_at: expiresIn ? addSeconds(now, expiresIn) : null,
  };
}

/**
 * The payload oidc-provider reads back from a stored row of model `type` (undefined for no row); a bearer secret
 * found by its value `id` gets its jti back.
 */
export function modelPayload(
  type: string,
  id: string | undefined,
  row: StoredPayload | undefined,
): AdapterPayload | undefined {
  if (!row) return undefined;
  const payload = row.consumed_at ? { ...row.payload, consumed: epochSeconds(new Date(row.consumed_at)) } : row.payload;
  return isHashedType(type) && id !== undefined ? { ...payload, jti: id } : payload;
}

/** A payload row's values as statement parameters, in the order of ROW_VALUES. */
export const ROW_VALUES = '?::text, ?::text, ?::jsonb, ?::text, ?::text, ?::text, ?::timestamptz';
export const rowValues = (row: PayloadRow): Array<string | Date | null> => [
  row.type,
  row.id,
  row.payload,
  row.grant_id,
  row.uid,
  row.user_code,
  row.expires_at,
];
export const INSERT_ROW = `INSERT INTO ${PAYLOADS_TABLE} (type, id, payload, grant_id, uid, user_code, expires_at)`;
/** What an upsert replaces of an existing row. */
export const MERGED =
  'ON CONFLICT (type, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid, user_code = excluded.user_code, expires_at = excluded.expires_at';

/** `?` parameters as $n from $`first`, for the prepared statements. */
export const numbered = (sql: string, first = 1): string => {
  let next = first;
  return sql.replace(/\?/g, () => `$${String(next++)}`);
};

/** Rows written (inserted, or replaced by key) in one statement, prepared once per row count. */
const upserts = new Map<number, PreparedStatement>();
export function upsertOf(rows: number): PreparedStatement {
  let statement = upserts.get(rows);
  if (!statement) {
    const values = Array.from({ length: rows }, (_row, index) => `(${numbered(ROW_VALUES, 1 + 7 * index)})`).join(', ');
    statement = {
      name: rows === 1 ? 'oidc_payloads_upsert' : `oidc_payloads_upsert_${String(rows)}`,
      text: `${INSERT_ROW} VALUES ${values} ${MERGED}`,
    };
    upserts.set(rows, statement);
  }
  return statement;
}

/**
 * The live grant whose id is `idExpression`, joined to a statement of the hot path as `grant_row` (`LEFT` keeps the
 * row without one). It is a lateral subquery with `LIMIT 1` so that PostgreSQL plans it on its own, as a primary-key
 * lookup with the outer id as a parameter, whatever the table held when a connection prepared the statement: as a
 * plain join, a connection that prepared on an almost empty table kept a plan that read every grant by `type`
 * (docs/decisions/performance.md "Plans that stay point lookups").
 */
export const liveGrantJoin = (join: 'JOIN' | 'LEFT JOIN', idExpression: string, now: string): string =>
  `${join} LATERAL (SELECT id, payload FROM ${PAYLOADS_TABLE}
                     WHERE type = 'Grant' AND id = ${idExpression} AND (expires_at IS NULL OR expires_at > ${now}) LIMIT 1) grant_row ON true`;

/**
 * A second redemption of a single-use artifact is an attack or a replay: everything issued under its grant is
 * revoked (the grant included), and the caller fails the request with invalid_grant.
 */
export async function revokeGrantOf(db: Database, type: string, key: string): Promise<void> {
  const grantOf = db(PAYLOADS_TABLE).select('grant_id').where({ type, id: key });
  await db(PAYLOADS_TABLE)
    .whereIn('grant_id', grantOf)
    .orWhere((query) => {
      query.where('type', 'Grant').whereIn('id', grantOf);
    })
    .delete();
}
