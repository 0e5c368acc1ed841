import type { Adapter, AdapterPayload } from 'oidc-provider';
import { errors } from 'oidc-provider';
import { schedulePeriodic } from '../lib/periodic.js';
import {
  keyOf,
  modelPayload,
  PAYLOADS_TABLE,
  payloadRow,
  revokeGrantOf,
  rowValues,
  upsertOf,
  type OidcAdapterFactory,
  type StoredPayload,
} from '../lib/store/oidc-payloads.js';
import { runPrepared, type PreparedStatement } from '../lib/store/prepared.js';

const DEFAULT_SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/** The one read every model's find makes, prepared once per connection (lib/store/prepared.ts). */
const FIND: PreparedStatement = {
  name: 'oidc_payloads_find',
  text: `SELECT payload, consumed_at FROM ${PAYLOADS_TABLE} WHERE type = $1 AND id = $2 AND (expires_at IS NULL OR expires_at > $3)`,
};

/**
 * oidc-provider's storage on Knex, its Adapter contract and nothing else: every model but Client in one table keyed
 * by (type, id) (lib/store/oidc-payloads.ts), each method one statement that does the same on every route. Bearer
 * secrets are stored under their SHA-256. Where a step of the flow combines several rows in one statement, that is
 * lib/oauth2/flow-storage.ts, which calls none of this.
 */
export const knexAdapter: OidcAdapterFactory = (options) => {
  const { db, clock } = options;
  schedulePeriodic(options, {
    name: 'sweeping expired oidc_payloads',
    everyMs: options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS,
    run: async () => {
      const now = clock.now();
      await options.beforeSweep?.(now);
      await db(PAYLOADS_TABLE).where('expires_at', '<=', now).delete();
    },
  });

  const live = (type: string) =>
    db<StoredPayload>(PAYLOADS_TABLE)
      .select('payload', 'consumed_at')
      .where('type', type)
      .andWhere((query) => {
        query.whereNull('expires_at').orWhere('expires_at', '>', clock.now());
      });

  return class KnexAdapter implements Adapter {
    constructor(private readonly type: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      if (this.type === 'Client') throw new Error('clients are managed through the External API, not oidc-provider');
      await runPrepared(db, upsertOf(1), rowValues(payloadRow(this.type, id, payload, expiresIn, clock.now())));
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const [row] = await runPrepared<StoredPayload>(db, FIND, [this.type, keyOf(this.type, id), clock.now()]);
      return modelPayload(this.type, id, row);
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return modelPayload(this.type, undefined, await live(this.type).andWhere('uid', uid).first());
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return modelPayload(this.type, undefined, await live(this.type).andWhere('user_code', userCode).first());
    }

    async destroy(id: string): Promise<void> {
      await db(PAYLOADS_TABLE)
        .where({ type: this.type, id: keyOf(this.type, id) })
        .delete();
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db(PAYLOADS_TABLE).where({ type: this.type, grant_id: grantId }).delete();
    }

    /**
     * Redeems a single-use artifact atomically: of concurrent redemptions exactly one changes the row; the others
     * revoke everything issued under its grant and fail with invalid_grant (RFC 6749 "Authorization Code").
     */
    async consume(id: string): Promise<void> {
      const key = keyOf(this.type, id);
      const changed: number = await db(PAYLOADS_TABLE)
        .where({ type: this.type, id: key })
        .whereNull('consumed_at')
        .update({ consumed_at: clock.now() });
      if (changed === 1) return;
      await revokeGrantOf(db, this.type, key);
      throw new errors.InvalidGrant('authorization code already used');
    }
  };
};
