import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import Provider, { errors, type Adapter, type AdapterConstructor, type AdapterPayload } from 'oidc-provider';
import { addSeconds, epochSeconds, type Clock } from '../lib/clock.js';
import type { Logger } from '../lib/log.js';
import { schedulePeriodic } from '../lib/periodic.js';
import { sha256 } from '../lib/security/hashing.js';
import type { Database } from '../lib/store/database.js';
import { runPrepared, type PreparedStatement } from '../lib/store/prepared.js';

const TABLE = 'oidc_payloads';

export interface KnexAdapterOptions {
  db: Database;
  /** decides expiry (stored expires_at, hidden rows, the sweeper) so tests can move time */
  clock: Clock;
  log: Logger;
  /** Clients do not live in oidc_payloads: their metadata comes from our own tables. */
  findClient(clientId: string): Promise<AdapterPayload | undefined>;
  /** milliseconds between two sweeps of expired rows */
  sweepIntervalMs?: number;
  /** registers the sweeper's stop with the owner's shutdown */
  onClose(task: () => Promise<void>): void;
}

interface PayloadRow {
  type: string;
  id: string;
  /** JSON text */
  payload: string;
  grant_id: string | null;
  uid: string | null;
  user_code: string | null;
  expires_at: Date | null;
}

interface Row {
  payload: AdapterPayload;
  consumed_at: Date | string | null;
}

const DEFAULT_SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/** A payload row's values as statement parameters, in the order of ROW_VALUES. */
const ROW_VALUES = '?::text, ?::text, ?::jsonb, ?::text, ?::text, ?::text, ?::timestamptz';
const rowValues = (row: PayloadRow): Array<string | Date | null> => [row.type, row.id, row.payload, row.grant_id, row.uid, row.user_code, row.expires_at];
/** What an upsert replaces of an existing row. */
const MERGED = 'payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid, user_code = excluded.user_code, expires_at = excluded.expires_at';
/** ROW_VALUES as $n parameters from $`first`, for the prepared statements. */
const numbered = (sql: string, first = 1): string => {
  let next = first;
  return sql.replace(/\?/g, () => `$${String(next++)}`);
};

/**
 * The live grant whose id is `idExpression`, joined to a statement of the hot path as `grant_row` (`LEFT` keeps the
 * row without one). It is a lateral subquery with `LIMIT 1` so that PostgreSQL plans it on its own, as a primary-key
 * lookup with the outer id as a parameter, whatever the table held when a connection prepared the statement. As a
 * plain join, a connection that prepared on an almost empty table kept a plan that read every grant by `type` and
 * filtered on the id: measured, 1,700 rows read per token exchange, Resources read and resume after 1,700 flows,
 * and PostgreSQL's CPU per flow growing with the table (docs/performance.md). ANALYZE would replace such a plan;
 * a server without autovacuum never runs one.
 */
export const liveGrantJoin = (join: 'JOIN' | 'LEFT JOIN', idExpression: string, now: string): string =>
  `${join} LATERAL (SELECT id, payload FROM ${TABLE}
                     WHERE type = 'Grant' AND id = ${idExpression} AND (expires_at IS NULL OR expires_at > ${now}) LIMIT 1) grant_row ON true`;

/** Rows written (inserted, or replaced by key) in one statement: one per save, or those a resume held (writeHeldRows). */
const upserts = new Map<number, PreparedStatement>();
function upsertOf(rows: number): PreparedStatement {
  let statement = upserts.get(rows);
  if (!statement) {
    const values = Array.from({ length: rows }, (_row, index) => `(${numbered(ROW_VALUES, 1 + 7 * index)})`).join(', ');
    statement = {
      name: rows === 1 ? 'oidc_payloads_upsert' : `oidc_payloads_upsert_${String(rows)}`,
      text: `INSERT INTO ${TABLE} (type, id, payload, grant_id, uid, user_code, expires_at) VALUES ${values}
             ON CONFLICT (type, id) DO UPDATE SET ${MERGED}`,
    };
    upserts.set(rows, statement);
  }
  return statement;
}

/** The adapter's statements of the hot path, prepared once per connection (lib/store/prepared.ts). */
const STATEMENTS = {
  find: {
    name: 'oidc_payloads_find',
    text: `SELECT payload, consumed_at FROM ${TABLE} WHERE type = $1 AND id = $2 AND (expires_at IS NULL OR expires_at > $3)`,
  },
  /** At the token endpoint: the code, its grant and the grant's verification. */
  codeWithGrant: {
    name: 'oidc_payloads_code_with_grant',
    text: `SELECT code.payload, code.consumed_at, code.grant_id, grant_row.payload AS grant_payload,
                  verification.uid AS verification_uid, verification.verified
             FROM ${TABLE} code
             ${liveGrantJoin('LEFT JOIN', 'code.grant_id', '$1')}
             LEFT JOIN verifications verification ON verification.grant_id = code.grant_id
            WHERE code.type = 'AuthorizationCode' AND code.id = $2 AND (code.expires_at IS NULL OR code.expires_at > $1)`,
  },
  /** The code consumed and the access token stored: both or neither. */
  redeem: {
    name: 'oidc_payloads_redeem',
    text: `WITH redeemed AS (
             UPDATE ${TABLE} SET consumed_at = $1 WHERE type = 'AuthorizationCode' AND id = $2 AND consumed_at IS NULL RETURNING id
           )
           INSERT INTO ${TABLE} (type, id, payload, grant_id, uid, user_code, expires_at)
           SELECT ${numbered(ROW_VALUES, 3)} FROM redeemed
           ON CONFLICT (type, id) DO UPDATE SET ${MERGED}
           RETURNING id`,
  },
  /** At the resume: the interaction taken, with the grant its result names. */
  takeInteraction: {
    name: 'oidc_payloads_take_interaction',
    text: `WITH taken AS (
             DELETE FROM ${TABLE} WHERE type = 'Interaction' AND id = $1 RETURNING payload, consumed_at, expires_at
           )
           SELECT taken.payload, taken.consumed_at, grant_row.id AS grant_id, grant_row.payload AS grant_payload
             FROM taken
             ${liveGrantJoin('LEFT JOIN', "taken.payload->'result'->'consent'->>'grantId'", '$2')}
            WHERE taken.expires_at IS NULL OR taken.expires_at > $2`,
  },
} as const satisfies Record<string, PreparedStatement>;

/**
 * The authorization code each token request has redeemed but not yet written (keyed by the request's context):
 * the redemption is written by the same statement as the access token, so a failed exchange leaves the code
 * unused and the website can retry it (a code consumed without a token would lose the visitor's verification).
 */
const pendingRedemptions = new WeakMap<object, string>();

/** What a token request read with its authorization code, so that the grant and the verification cost no statement. */
interface ReadWithCode {
  grantId: string;
  grant: AdapterPayload | undefined;
  verification: { uid: string; verified: boolean } | undefined;
}

/** Per token request (keyed by its context): the grant and verification the code's one read brought along. */
const readWithCode = new WeakMap<object, ReadWithCode>();

/**
 * The verification the token request's code read found for `grantId` (token-claims asks before querying): `null` when
 * the read found none, undefined when this request read nothing for that grant.
 */
export function verificationReadWithCode(ctx: object | undefined, grantId: string): { uid: string; verified: boolean } | null | undefined {
  const read = ctx ? readWithCode.get(ctx) : undefined;
  if (!read || read.grantId !== grantId) return undefined;
  return read.verification ?? null;
}

/**
 * How the interaction being ended is written (endInteractionTogether): the verification its grant carries, and our
 * own writes that go with it. Everything goes in the interaction's one statement.
 */
export interface InteractionEnding {
  /** the verification the grant is linked to: an existing one (still unlinked), or a new one inserted with the grant's id */
  verification?: { link: string } | { insert: (grantId: string) => Knex.QueryBuilder };
  /** writes of our own tables that end with the interaction (e.g. its progress deleted) */
  alongside?: Knex.QueryBuilder[];
}

interface EndingScope {
  spec: InteractionEnding;
  /** the Grant saved in the scope, written with the interaction */
  grant?: PayloadRow;
}

/**
 * The interaction's ending wrote nothing: the verification it links is gone or already linked to a grant, which is
 * what a repeat of the form that ended it meets while (or after) the first submit ends it.
 */
export class InteractionAlreadyEnded extends Error {
  override name = 'InteractionAlreadyEnded';
}

/**
 * Runs `work` (a Grant's save, then the Interaction's save with its result) so that one statement writes the
 * verification (linked or new), the grant, the companions and the interaction: all or none of the grant's part.
 * A grant saved without its interaction is a programming error.
 */
export async function endInteractionTogether<T>(spec: InteractionEnding, work: () => Promise<T>): Promise<T> {
  const scope: EndingScope = { spec };
  const result = await adapterScope.run({ ending: scope }, work);
  if (scope.grant) throw new Error('a grant was saved but not the interaction it ends');
  return result;
}

/** At the resume: the interaction taken (read and deleted in one statement) and the grant its result names. */
interface TakenAtResume {
  interactionId: string;
  grantId: string | null;
  grant: AdapterPayload | undefined;
}
/** Per resume request (keyed by its context). */
const takenAtResume = new WeakMap<object, TakenAtResume>();

/**
 * What a resume saves (the authorization code, then the visitor's session, one after the other in oidc-provider),
 * held and written in one statement when the provider is done with the request, before the answer carrying the code
 * leaves (writeHeldRows, run by the OAuth2 surface around the provider).
 */
const heldAtResume = new WeakMap<object, { db: Database; rows: PayloadRow[] }>();

/** Writes what the adapter held for the end of `request`, in one statement; nothing when it held nothing. */
export async function writeHeldRows(request: object): Promise<void> {
  const held = heldAtResume.get(request);
  if (!held) return;
  heldAtResume.delete(request);
  await runPrepared(held.db, upsertOf(held.rows.length), held.rows.flatMap(rowValues));
}

/** A row its reader already has (read with its companions in one statement), for the model's next find. */
interface PrereadRow {
  type: string;
  id: string;
  row: { payload: AdapterPayload; consumed_at: Date | string | null } | undefined;
}

/**
 * What the adapter is told by the code around a save or a find: one store for both, since every AsyncLocalStorage
 * in the process adds work to every promise (docs/performance.md).
 */
type AdapterScope = { ending: EndingScope; preread?: never } | { preread: PrereadRow; ending?: never };
const adapterScope = new AsyncLocalStorage<AdapterScope>();

/**
 * Runs `find` (e.g. provider.interactionDetails) so that the `type` row with `id` comes from `row` instead of a
 * statement: the interaction pages read the interaction, its progress and its verification in one.
 */
export function withPrereadRow<T>(known: PrereadRow, find: () => Promise<T>): Promise<T> {
  return adapterScope.run({ preread: known }, find);
}

/** The request oidc-provider is serving on `route`, when there is one. */
function requestOn(route: 'token' | 'resume'): object | undefined {
  const ctx = Provider.ctx;
  return ctx?.oidc?.route === route ? ctx : undefined;
}

/**
 * Bearer secrets (their id is the value a client presents) are only ever checked, never looked up by uid: the table
 * keeps their SHA-256 and no `jti`, so a leaked database holds no usable code or token. find() puts the jti back.
 */
const HASHED_TYPES = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken']);

/** The key a bearer secret is stored under (Resources looks access tokens up by it in its one statement). */
export const storedKey = (bearerValue: string): string => sha256(bearerValue);

/**
 * oidc-provider's storage on Knex: every model but Client in one table keyed by (type, id).
 * Single statements only, so nothing here ever holds the embedded database's one connection across awaits.
 */
export function knexAdapter(options: KnexAdapterOptions): AdapterConstructor {
  const { db, clock, findClient } = options;
  schedulePeriodic(options, {
    name: 'sweeping expired oidc_payloads',
    everyMs: options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS,
    run: async () => {
      await db(TABLE).where('expires_at', '<=', clock.now()).delete();
    },
  });

  const live = (type: string) =>
    db<Row>(TABLE)
      .select('payload', 'consumed_at')
      .where('type', type)
      .andWhere((query) => query.whereNull('expires_at').orWhere('expires_at', '>', clock.now()));

  // `consumed` is kept in its own column (the atomic guard); the provider reads it from the payload.
  const toPayload = (row: Row | undefined): AdapterPayload | undefined => {
    if (!row) return undefined;
    return row.consumed_at ? { ...row.payload, consumed: epochSeconds(new Date(row.consumed_at)) } : row.payload;
  };

  return class KnexAdapter implements Adapter {
    private readonly hashed: boolean;
    constructor(private readonly type: string) {
      this.hashed = HASHED_TYPES.has(type);
    }

    private key(id: string): string {
      return this.hashed ? storedKey(id) : id;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      if (this.type === 'Client') throw new Error('clients are managed through the External API, not oidc-provider');
      const { jti: _jti, ...withoutJti } = payload;
      const row: PayloadRow = {
        type: this.type,
        id: this.key(id),
        payload: JSON.stringify(this.hashed ? withoutJti : payload),
        grant_id: payload.grantId ?? null,
        uid: payload.uid ?? null,
        user_code: payload.userCode ?? null,
        expires_at: expiresIn ? addSeconds(clock.now(), expiresIn) : null,
      };
      const request = this.type === 'AccessToken' ? requestOn('token') : undefined;
      const code = request && pendingRedemptions.get(request);
      if (request && code !== undefined) {
        pendingRedemptions.delete(request);
        return insertRedeeming(row, code);
      }
      const resume = this.type === 'AuthorizationCode' || this.type === 'Session' ? requestOn('resume') : undefined;
      if (resume) {
        // A second save of the same row replaces the first, as it would in the table (one statement may not write a key twice).
        const held = heldAtResume.get(resume) ?? { db, rows: [] };
        held.rows = [...held.rows.filter((earlier) => earlier.type !== row.type || earlier.id !== row.id), row];
        heldAtResume.set(resume, held);
        return;
      }
      const scope = adapterScope.getStore()?.ending;
      if (scope && this.type === 'Grant' && scope.spec.verification) {
        scope.grant = row; // written with the interaction
        return;
      }
      if (scope && this.type === 'Interaction') return writeEnding(scope, row);
      await runPrepared(db, upsertOf(1), rowValues(row));
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.type === 'Client') return findClient(id);
      const known = adapterScope.getStore()?.preread;
      if (known && known.type === this.type && known.id === id && !this.hashed) return toPayload(known.row);
      // The token exchange and the resume read their rows with companions, in one statement each.
      const request = Provider.ctx;
      const route = request?.oidc?.route;
      if (request && route === 'token') {
        if (this.type === 'AuthorizationCode') {
          const code = await findCodeWithGrant(request, this.key(id));
          return code && { ...code, jti: id };
        }
        const withCode = this.type === 'Grant' ? readWithCode.get(request) : undefined;
        if (withCode?.grantId === id) return withCode.grant;
      } else if (request && route === 'resume') {
        if (this.type === 'Interaction') return takeAtResume(request, id);
        const taken = this.type === 'Grant' ? takenAtResume.get(request) : undefined;
        if (taken?.grantId === id) return taken.grant;
      }
      const [row] = await runPrepared<Row>(db, STATEMENTS.find, [this.type, this.key(id), clock.now()]);
      const payload = toPayload(row);
      return payload && this.hashed ? { ...payload, jti: id } : payload;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return toPayload(await live(this.type).andWhere('uid', uid).first());
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return toPayload(await live(this.type).andWhere('user_code', userCode).first());
    }

    async destroy(id: string): Promise<void> {
      const resume = this.type === 'Interaction' ? requestOn('resume') : undefined;
      if (resume && takenAtResume.get(resume)?.interactionId === id) return; // deleted when it was read
      await db(TABLE).where({ type: this.type, id: this.key(id) }).delete();
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db(TABLE).where({ type: this.type, grant_id: grantId }).delete();
    }

    /**
     * Redeems a single-use artifact atomically: of concurrent redemptions exactly one changes the row. At the token
     * endpoint the code's redemption is deferred to the access token's write (insertRedeeming).
     */
    async consume(id: string): Promise<void> {
      const request = this.type === 'AuthorizationCode' ? requestOn('token') : undefined;
      if (request) {
        // Written with the access token (insertRedeeming); until then a failure leaves the code redeemable.
        pendingRedemptions.set(request, this.key(id));
        return;
      }
      const changed: number = await db(TABLE)
        .where({ type: this.type, id: this.key(id) })
        .whereNull('consumed_at')
        .update({ consumed_at: clock.now() });
      if (changed !== 1) await refuseReplay(this.type, this.key(id));
    }
  };

  /**
   * At the token endpoint: the code, its grant and the grant's verification in one statement (the exchange's only
   * read); the grant and the verification are kept for the request's Grant.find and extraTokenClaims.
   */
  async function findCodeWithGrant(request: object, codeKey: string): Promise<AdapterPayload | undefined> {
    const [row] = await runPrepared<Row & { grant_id: string | null; grant_payload: AdapterPayload | null; verification_uid: string | null; verified: boolean | null }>(
      db, STATEMENTS.codeWithGrant, [clock.now(), codeKey],
    );
    if (!row) return undefined;
    if (row.grant_id) {
      readWithCode.set(request, {
        grantId: row.grant_id,
        grant: row.grant_payload ?? undefined,
        verification: row.verification_uid ? { uid: row.verification_uid, verified: row.verified === true } : undefined,
      });
    }
    return toPayload(row);
  }

  /**
   * A second redemption is an attack or a replay: everything issued under the artifact's grant is revoked and the
   * request fails with invalid_grant (RFC 6749 §4.1.2).
   */
  async function refuseReplay(type: string, key: string): Promise<never> {
    const grantOf = db(TABLE).select('grant_id').where({ type, id: key });
    await db(TABLE)
      .whereIn('grant_id', grantOf)
      .orWhere((query) => query.where('type', 'Grant').whereIn('id', grantOf))
      .delete();
    throw new errors.InvalidGrant('authorization code already used');
  }

  /**
   * The resume's one read: the interaction is taken (oidc-provider deletes it at every resume; a resume that fails
   * its checks cannot be repeated either) together with the grant its result names, kept for the request's Grant.find.
   */
  async function takeAtResume(request: object, id: string): Promise<AdapterPayload | undefined> {
    const [row] = await runPrepared<Row & { grant_id: string | null; grant_payload: AdapterPayload | null }>(db, STATEMENTS.takeInteraction, [id, clock.now()]);
    takenAtResume.set(request, { interactionId: id, grantId: row?.grant_id ?? null, grant: row?.grant_payload ?? undefined });
    return toPayload(row);
  }

  /**
   * The interaction's end in one statement: the verification linked (or inserted) with the grant's id, the grant,
   * the companions and the interaction itself. With a grant, the interaction is written only if the verification
   * was (a missing or already linked verification fails the save and writes no grant and no result).
   */
  async function writeEnding(scope: EndingScope, interaction: PayloadRow): Promise<void> {
    const { grant } = scope;
    scope.grant = undefined;
    const { verification } = scope.spec;
    const parts: string[] = [];
    const bindings: Knex.RawBinding[] = [];
    if (grant && verification) {
      if ('link' in verification) {
        parts.push(`verification AS (UPDATE verifications SET grant_id = ? WHERE uid = ? AND grant_id IS NULL RETURNING uid)`);
        bindings.push(grant.id, verification.link);
      } else {
        parts.push('verification AS (?)');
        bindings.push(verification.insert(grant.id));
      }
      parts.push(`grant_row AS (INSERT INTO ${TABLE} (type, id, payload, grant_id, uid, user_code, expires_at)
         SELECT ${ROW_VALUES} FROM verification RETURNING id)`);
      bindings.push(...rowValues(grant));
    }
    for (const companion of scope.spec.alongside ?? []) {
      parts.push(`companion_${String(parts.length)} AS (?)`);
      bindings.push(companion);
    }
    const { sql, bindings: values } = db.raw(
      `${parts.length > 0 ? `WITH ${parts.join(',\n')}` : ''}
       INSERT INTO ${TABLE} (type, id, payload, grant_id, uid, user_code, expires_at)
       SELECT ${ROW_VALUES} ${grant ? 'FROM grant_row' : ''}
       ON CONFLICT (type, id) DO UPDATE SET ${MERGED}
       RETURNING id`,
      [...bindings, ...rowValues(interaction)],
    ).toSQL().toNative();
    // Every interaction ends with one of a few texts (a verification linked or inserted, which companions): each is
    // prepared once per connection under a name drawn from its text, instead of parsed and planned at every ending.
    const rows = await runPrepared(db, { name: `oidc_payloads_end_${sha256(sql).slice(0, 16)}`, text: sql }, values);
    if (rows.length !== 1) throw new InteractionAlreadyEnded(`the verification of interaction ${interaction.id} is missing or already linked`);
  }

  /**
   * One statement marks the code consumed and stores the access token: both or neither. Of concurrent redemptions
   * exactly one updates the code row (the others wait for its lock, then find it consumed) and inserts a token.
   */
  async function insertRedeeming(row: PayloadRow, codeKey: string): Promise<void> {
    const rows = await runPrepared(db, STATEMENTS.redeem, [clock.now(), codeKey, ...rowValues(row)]);
    if (rows.length !== 1) await refuseReplay('AuthorizationCode', codeKey);
  }
}
