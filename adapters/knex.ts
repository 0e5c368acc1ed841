import { errors, type Adapter, type AdapterConstructor, type AdapterPayload } from 'oidc-provider';
import { addSeconds, epochSeconds, type Clock } from '../lib/clock.js';
import type { Logger } from '../lib/log.js';
import { schedulePeriodic } from '../lib/periodic.js';
import { sha256 } from '../lib/security/hashing.js';
import type { Database } from '../lib/store/database.js';

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

interface Row {
  payload: AdapterPayload;
  consumed_at: Date | string | null;
}

const DEFAULT_SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Bearer secrets (their id is the value a client presents) are only ever checked, never looked up by uid: the table
 * keeps their SHA-256 and no `jti`, so a leaked database holds no usable code or token. find() puts the jti back.
 */
const HASHED_TYPES = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken']);

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
      return this.hashed ? sha256(id) : id;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      if (this.type === 'Client') throw new Error('clients are managed through the External API, not oidc-provider');
      const { jti: _jti, ...withoutJti } = payload;
      await db(TABLE)
        .insert({
          type: this.type,
          id: this.key(id),
          payload: JSON.stringify(this.hashed ? withoutJti : payload),
          grant_id: payload.grantId ?? null,
          uid: payload.uid ?? null,
          user_code: payload.userCode ?? null,
          expires_at: expiresIn ? addSeconds(clock.now(), expiresIn) : null,
        })
        .onConflict(['type', 'id'])
        .merge(['payload', 'grant_id', 'uid', 'user_code', 'expires_at']);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.type === 'Client') return findClient(id);
      const payload = toPayload(await live(this.type).andWhere('id', this.key(id)).first());
      return payload && this.hashed ? { ...payload, jti: id } : payload;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return toPayload(await live(this.type).andWhere('uid', uid).first());
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return toPayload(await live(this.type).andWhere('user_code', userCode).first());
    }

    async destroy(id: string): Promise<void> {
      await db(TABLE).where({ type: this.type, id: this.key(id) }).delete();
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db(TABLE).where({ type: this.type, grant_id: grantId }).delete();
    }

    /**
     * Redeems a single-use artifact atomically: of concurrent redemptions exactly one changes the row.
     * A second redemption is an attack or a replay: everything issued under the artifact's grant is revoked
     * and the request fails with invalid_grant (RFC 6749 §4.1.2).
     */
    async consume(id: string): Promise<void> {
      const changed: number = await db(TABLE)
        .where({ type: this.type, id: this.key(id) })
        .whereNull('consumed_at')
        .update({ consumed_at: clock.now() });
      if (changed === 1) return;
      const grantOf = db(TABLE).select('grant_id').where({ type: this.type, id: this.key(id) });
      await db(TABLE)
        .whereIn('grant_id', grantOf)
        .orWhere((query) => query.where('type', 'Grant').whereIn('id', grantOf))
        .delete();
      throw new errors.InvalidGrant('authorization code already used');
    }
  };
}
