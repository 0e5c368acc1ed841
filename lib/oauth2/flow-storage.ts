import type { Knex } from 'knex';
import type Koa from 'koa';
import Provider, {
  errors,
  type Adapter,
  type AdapterConstructor,
  type AdapterPayload,
  type InteractionResults,
} from 'oidc-provider';
import type { Clock } from '../clock.js';
import { sha256 } from '../security/hashing.js';
import type { Database } from '../store/database.js';
import {
  INSERT_ROW,
  keyOf,
  liveGrantJoin,
  MERGED,
  modelPayload,
  numbered,
  PAYLOADS_TABLE,
  payloadRow,
  revokeGrantOf,
  ROW_VALUES,
  rowValues,
  upsertOf,
  type PayloadRow,
  type StoredPayload,
} from '../store/oidc-payloads.js';
import { runPrepared, type PreparedStatement } from '../store/prepared.js';

/**
 * The authorization flow's storage where one step writes or reads several rows: each step below is a transaction,
 * atomic and written as ONE statement (every statement of the hot path is a round trip; docs/architecture.md "The
 * storage of the flow"), the way Ory Fosite names its storage by flow step (CreateAuthorizeCodeSession,
 * InvalidateAuthorizeCodeSession) and runs them in a transaction the handler opens.
 *
 * - the token exchange: `readCodeWithGrant` (the code, its grant and its verification) and `redeemCode` (the code
 *   consumed and the access token stored: both or neither);
 * - the resume: `takeInteraction` (the interaction read and deleted, with the grant its result names) and
 *   `writeRows` (the code and the session it saves);
 * - the interaction's end: `endInteraction` (the verification linked or inserted, the grant, our companion writes
 *   and the interaction's result: all or none of the grant's part).
 *
 * oidc-provider runs the token exchange and the resume itself and reaches storage only through its Adapter, so the
 * OAuth2 surface opens the request's transaction (`openFlowTransaction`, one typed object on Koa's state) and
 * `flowAdapter` hands the operations that take part in it to these steps; every other operation, and every other
 * request, goes to the plain adapter (adapters/knex.ts) unchanged. The interaction pages run outside the provider:
 * they call `endInteraction` themselves.
 */

/** What the token exchange's one read brought with the code, for the request's Grant.find and extraTokenClaims. */
interface ReadWithCode {
  grantId: string;
  grant: AdapterPayload | undefined;
  verification: { uid: string; verified: boolean } | undefined;
}

/** The token endpoint's transaction: the code read with its companions, its redemption deferred to the token's write. */
interface TokenExchange {
  step: 'token';
  read?: ReadWithCode;
  /** the stored key of the code consumed, written with the access token (until then a failure leaves it redeemable) */
  redeeming?: string;
}

/** The resume's transaction: the interaction taken with its grant, and the rows saved, written when the provider is done. */
interface Resume {
  step: 'resume';
  taken?: { interactionId: string; grantId: string | null; grant: AdapterPayload | undefined };
  held: PayloadRow[];
}

/** One request's transaction with oidc-provider's storage. */
export type FlowTransaction = TokenExchange | Resume;

declare module 'koa' {
  interface DefaultState {
    /** the flow step this request runs through oidc-provider, whose storage operations join one transaction */
    flowTransaction?: FlowTransaction;
  }
}

const STATEMENTS = {
  codeWithGrant: {
    name: 'oidc_payloads_code_with_grant',
    text: `SELECT code.payload, code.consumed_at, code.grant_id, grant_row.payload AS grant_payload,
                  verification.uid AS verification_uid, verification.verified
             FROM ${PAYLOADS_TABLE} code
             ${liveGrantJoin('LEFT JOIN', 'code.grant_id', '$1')}
             LEFT JOIN verifications verification ON verification.grant_id = code.grant_id
            WHERE code.type = 'AuthorizationCode' AND code.id = $2 AND (code.expires_at IS NULL OR code.expires_at > $1)`,
  },
  redeem: {
    name: 'oidc_payloads_redeem',
    text: `WITH redeemed AS (
             UPDATE ${PAYLOADS_TABLE} SET consumed_at = $1 WHERE type = 'AuthorizationCode' AND id = $2 AND consumed_at IS NULL RETURNING id
           )
           ${INSERT_ROW} SELECT ${numbered(ROW_VALUES, 3)} FROM redeemed ${MERGED}
           RETURNING id`,
  },
  takeInteraction: {
    name: 'oidc_payloads_take_interaction',
    text: `WITH taken AS (
             DELETE FROM ${PAYLOADS_TABLE} WHERE type = 'Interaction' AND id = $1 RETURNING payload, consumed_at, expires_at
           )
           SELECT taken.payload, taken.consumed_at, grant_row.id AS grant_id, grant_row.payload AS grant_payload
             FROM taken
             ${liveGrantJoin('LEFT JOIN', "taken.payload->'result'->'consent'->>'grantId'", '$2')}
            WHERE taken.expires_at IS NULL OR taken.expires_at > $2`,
  },
} as const satisfies Record<string, PreparedStatement>;

/** Transaction: the code stored under `codeKey`, its live grant and the grant's verification, in one read. */
export async function readCodeWithGrant(
  db: Database,
  now: Date,
  codeKey: string,
): Promise<{ code: StoredPayload; read: ReadWithCode | undefined } | undefined> {
  type Row = StoredPayload & {
    grant_id: string | null;
    grant_payload: AdapterPayload | null;
    verification_uid: string | null;
    verified: boolean | null;
  };
  const [row] = await runPrepared<Row>(db, STATEMENTS.codeWithGrant, [now, codeKey]);
  if (!row) return undefined;
  const read = row.grant_id
    ? {
        grantId: row.grant_id,
        grant: row.grant_payload ?? undefined,
        verification: row.verification_uid ? { uid: row.verification_uid, verified: row.verified === true } : undefined,
      }
    : undefined;
  return { code: row, read };
}

/**
 * Transaction: the code under `codeKey` consumed and `token` stored, both or neither. Of concurrent redemptions
 * exactly one updates the code (the others wait for its lock, then find it consumed); a code already consumed
 * revokes everything of its grant and fails with invalid_grant.
 */
export async function redeemCode(db: Database, now: Date, codeKey: string, token: PayloadRow): Promise<void> {
  const rows = await runPrepared(db, STATEMENTS.redeem, [now, codeKey, ...rowValues(token)]);
  if (rows.length === 1) return;
  await revokeGrantOf(db, 'AuthorizationCode', codeKey);
  throw new errors.InvalidGrant('authorization code already used');
}

/**
 * Transaction: the interaction `id` read and deleted (oidc-provider deletes it at every resume, so a resume that
 * fails its checks cannot be repeated either), with the live grant its result names.
 */
export async function takeInteraction(
  db: Database,
  now: Date,
  id: string,
): Promise<{ interaction: StoredPayload | undefined; grantId: string | null; grant: AdapterPayload | undefined }> {
  const [row] = await runPrepared<StoredPayload & { grant_id: string | null; grant_payload: AdapterPayload | null }>(
    db,
    STATEMENTS.takeInteraction,
    [id, now],
  );
  return { interaction: row, grantId: row?.grant_id ?? null, grant: row?.grant_payload ?? undefined };
}

/** Transaction: `rows` written (inserted, or replaced by key); a later row of the same key replaces an earlier one. */
export async function writeRows(db: Database, rows: PayloadRow[]): Promise<void> {
  const byKey = new Map(rows.map((row) => [`${row.type}\u0000${row.id}`, row]));
  if (byKey.size > 0) await runPrepared(db, upsertOf(byKey.size), [...byKey.values()].flatMap(rowValues));
}

/**
 * The OAuth2 surface's layer around oidc-provider for `step`: the request's transaction is open while the provider
 * serves it, and the resume's held rows are written when the provider is done, before the answer carrying the code
 * leaves.
 */
export function openFlowTransaction(db: Database, step: FlowTransaction['step']): Koa.Middleware {
  return async (ctx, next) => {
    const transaction: FlowTransaction = step === 'token' ? { step } : { step, held: [] };
    ctx.state.flowTransaction = transaction;
    await next();
    if (transaction.step === 'resume') await writeRows(db, transaction.held);
  };
}

/** The verification the token exchange's read found for `grantId`: `null` when none, undefined when it read nothing for that grant. */
export function verificationReadWithCode(
  state: Koa.DefaultState,
  grantId: string,
): { uid: string; verified: boolean } | null | undefined {
  const transaction = state.flowTransaction;
  const read = transaction?.step === 'token' ? transaction.read : undefined;
  if (!read || read.grantId !== grantId) return undefined;
  return read.verification ?? null;
}

/**
 * The Adapter oidc-provider is given: `Plain`, with the operations of a request's open transaction handed to the
 * steps above. A request without one (everything but the token exchange and the resume) reaches `Plain` only.
 */
export function flowAdapter(Plain: AdapterConstructor, db: Database, clock: Clock): AdapterConstructor {
  const transactionOf = (): FlowTransaction | undefined => Provider.ctx?.state.flowTransaction;

  return class FlowAdapter implements Adapter {
    private readonly plain: Adapter;
    constructor(private readonly type: string) {
      this.plain = new Plain(type);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const transaction = transactionOf();
      if (transaction?.step === 'token') {
        if (this.type === 'AuthorizationCode') {
          const found = await readCodeWithGrant(db, clock.now(), keyOf(this.type, id));
          if (found?.read) transaction.read = found.read;
          return modelPayload(this.type, id, found?.code);
        }
        if (this.type === 'Grant' && transaction.read?.grantId === id) return transaction.read.grant;
      } else if (transaction?.step === 'resume') {
        if (this.type === 'Interaction') {
          const taken = await takeInteraction(db, clock.now(), id);
          transaction.taken = { interactionId: id, grantId: taken.grantId, grant: taken.grant };
          return modelPayload(this.type, id, taken.interaction);
        }
        if (this.type === 'Grant' && transaction.taken?.grantId === id) return transaction.taken.grant;
      }
      return this.plain.find(id) as Promise<AdapterPayload | undefined>;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const transaction = transactionOf();
      if (transaction?.step === 'token' && this.type === 'AccessToken' && transaction.redeeming !== undefined) {
        const codeKey = transaction.redeeming;
        transaction.redeeming = undefined;
        return redeemCode(db, clock.now(), codeKey, payloadRow(this.type, id, payload, expiresIn, clock.now()));
      }
      if (transaction?.step === 'resume' && (this.type === 'AuthorizationCode' || this.type === 'Session')) {
        transaction.held.push(payloadRow(this.type, id, payload, expiresIn, clock.now()));
        return;
      }
      return this.plain.upsert(id, payload, expiresIn);
    }

    async consume(id: string): Promise<void> {
      const transaction = transactionOf();
      if (transaction?.step === 'token' && this.type === 'AuthorizationCode') {
        transaction.redeeming = keyOf(this.type, id);
        return;
      }
      return this.plain.consume(id);
    }

    async destroy(id: string): Promise<void> {
      const transaction = transactionOf();
      if (transaction?.step === 'resume' && this.type === 'Interaction' && transaction.taken?.interactionId === id)
        return; // deleted when taken
      return this.plain.destroy(id);
    }

    findByUid(uid: string) {
      return this.plain.findByUid(uid);
    }

    findByUserCode(userCode: string) {
      return this.plain.findByUserCode(userCode);
    }

    revokeByGrantId(grantId: string) {
      return this.plain.revokeByGrantId(grantId);
    }
  };
}

/** The verification an interaction's grant carries: an existing one (still unlinked), or a new one inserted with the grant's id. */
export type EndingVerification = { link: string } | { insert: (grantId: string) => Knex.QueryBuilder };

/** An oidc-provider model as far as saving goes. */
interface SavedModel {
  save(ttl?: number): Promise<string>;
}
type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

export interface InteractionEnd {
  interaction: Interaction;
  /** the result the website receives at the resume, naming the grant saved with it (if any) */
  result(grantId: string | undefined): InteractionResults;
  /** an unsaved Grant for the result, with the verification it carries */
  grant?: { model: SavedModel; verification: EndingVerification };
  /** writes of our own tables that end with the interaction (e.g. its progress deleted) */
  alongside?: Knex.QueryBuilder[];
  /**
   * Without a grant: the insert recording how the flow ended, returning a row only when it inserted one. The
   * interaction is written only with it, so of two submits racing to end it the second writes nothing and is told
   * InteractionAlreadyEnded, as a repeat with a grant is by its verification.
   */
  ending?: Knex.QueryBuilder;
}

/**
 * Saves `model` (oidc-provider's own save: ids, expiry, payload) into a row instead of the table: the model's
 * adapter is, for this one save, a collector.
 */
async function savedRow<T>(
  model: SavedModel,
  type: string,
  clock: Clock,
  save: () => Promise<T>,
): Promise<{ row: PayloadRow; value: T }> {
  let row: PayloadRow | undefined;
  const collector: Pick<Adapter, 'upsert'> = {
    upsert: async (id, payload, expiresIn) => {
      row = payloadRow(type, id, payload, expiresIn, clock.now());
    },
  };
  Object.defineProperty(model, 'adapter', { value: collector, configurable: true });
  try {
    const value = await save();
    if (!row) throw new Error(`the ${type} was not saved`);
    return { row, value };
  } finally {
    delete (model as { adapter?: unknown }).adapter;
  }
}

/**
 * The interaction's ending wrote nothing: the verification it links is gone or already linked to a grant, which is
 * what a repeat of the form that ended it meets while (or after) the first submit ends it.
 */
export class InteractionAlreadyEnded extends Error {
  override name = 'InteractionAlreadyEnded';
}

/**
 * Transaction: the interaction ended with its result, in one statement with the grant the result names, the
 * verification linked (or inserted) with the grant's id, and the companions. With a grant, the interaction is
 * written only if the verification was: a missing or already linked verification fails and writes nothing of the
 * grant or the result (InteractionAlreadyEnded). Returns where the visitor resumes the authorization.
 */
export async function endInteraction(db: Database, clock: Clock, end: InteractionEnd): Promise<string> {
  const { interaction } = end;
  const grant = end.grant && (await savedRow(end.grant.model, 'Grant', clock, () => end.grant!.model.save()));
  interaction.result = end.result(grant?.value);
  const { row } = await savedRow(interaction, 'Interaction', clock, () => interaction.persist());

  const parts: string[] = [];
  const bindings: Knex.RawBinding[] = [];
  if (grant && end.grant) {
    const { verification } = end.grant;
    if ('link' in verification) {
      parts.push(
        `verification AS (UPDATE verifications SET grant_id = ? WHERE uid = ? AND grant_id IS NULL RETURNING uid)`,
      );
      bindings.push(grant.row.id, verification.link);
    } else {
      parts.push('verification AS (?)');
      bindings.push(verification.insert(grant.row.id));
    }
    parts.push(`grant_row AS (${INSERT_ROW} SELECT ${ROW_VALUES} FROM verification RETURNING id)`);
    bindings.push(...rowValues(grant.row));
  } else if (end.ending) {
    parts.push('ending AS (?)');
    bindings.push(end.ending);
  }
  for (const companion of end.alongside ?? []) {
    parts.push(`companion_${String(parts.length)} AS (?)`);
    bindings.push(companion);
  }
  const { sql, bindings: values } = db
    .raw(
      `${parts.length > 0 ? `WITH ${parts.join(',\n')}` : ''}
     ${INSERT_ROW} SELECT ${ROW_VALUES} ${grant ? 'FROM grant_row' : end.ending ? 'FROM ending' : ''} ${MERGED}
     RETURNING id`,
      [...bindings, ...rowValues(row)],
    )
    .toSQL()
    .toNative();
  // Every interaction ends with one of a few texts (a verification linked or inserted, which companions): each is
  // prepared once per connection under a name drawn from its text, instead of parsed and planned at every ending.
  const written = await runPrepared(db, { name: `oidc_payloads_end_${sha256(sql).slice(0, 16)}`, text: sql }, values);
  if (written.length !== 1)
    throw new InteractionAlreadyEnded(
      `the verification of interaction ${interaction.uid} is missing or already linked, or its ending recorded`,
    );
  return interaction.returnTo;
}
