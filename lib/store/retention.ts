import type { Clock } from '../clock.js';
import type { Settings } from '../config/types.js';
import type { Logger } from '../log.js';
import { schedulePeriodic } from '../periodic.js';
import type { Database } from './database.js';

/** Rows deleted per statement: a backlog is worked off in short transactions that never hold locks for long. */
const BATCH = 5000;
const SWEEP_EVERY_MS = 10 * 60 * 1000;

type Limits = Pick<Settings, 'verificationRetention' | 'proofReuseTtl' | 'verificationTtl'>;

/** One table whose rows end: which rows are gone, and the rule as docs/privacy.md states it. */
export interface RetentionRule {
  table: string;
  /** the words docs/privacy.md uses for this rule (its retention table must contain them) */
  documented: string;
  /** the keys (column `key`) of at most BATCH rows past their retention */
  expired(db: Database, now: Date, limits: Limits): Promise<unknown[]>;
  key: string;
}

const ago = (now: Date, seconds: number): Date => new Date(now.getTime() - seconds * 1000);

export const RETENTION_RULES: readonly RetentionRule[] = [
  {
    table: 'verifications',
    documented: 'expiry + `VERIFICATION_RETENTION`',
    key: 'id',
    expired: (db, now, limits) =>
      db('verifications').where('expires_at', '<=', ago(now, limits.verificationRetention)).limit(BATCH).pluck('id'),
  },
  {
    table: 'flow_endings',
    documented: 'end + `VERIFICATION_TTL` + `VERIFICATION_RETENTION`',
    key: 'id',
    // A flow that ended without a verification is listed as long as a verification of that moment would be.
    expired: (db, now, limits) =>
      db('flow_endings')
        .where('ended_at', '<=', ago(now, limits.verificationTtl + limits.verificationRetention))
        .limit(BATCH)
        .pluck('id'),
  },
  {
    table: 'age_proofs',
    documented: '`PROOF_REUSE_TTL`',
    key: 'id',
    // reusable_until was set from PROOF_REUSE_TTL when proven; a TTL lowered since then applies too.
    expired: (db, now, limits) =>
      db('age_proofs')
        .where('reusable_until', '<=', now)
        .orWhere('proven_at', '<=', ago(now, limits.proofReuseTtl))
        .limit(BATCH)
        .pluck('id'),
  },
  {
    table: 'webhook_messages',
    documented: 'delivered or given up + `VERIFICATION_RETENTION`',
    key: 'id',
    // A message carries a verification's result: it is kept no longer than the verification, once it needs no attempt.
    expired: (db, now, limits) =>
      db('webhook_messages')
        .whereNull('next_attempt_at')
        .where((finished) => {
          finished
            .where('delivered_at', '<=', ago(now, limits.verificationRetention))
            .orWhere('given_up_at', '<=', ago(now, limits.verificationRetention));
        })
        .limit(BATCH)
        .pluck('id'),
  },
  {
    table: 'rate_limits',
    documented: 'end of its window',
    key: 'key',
    // expire is in epoch milliseconds (rate-limiter-flexible); null marks a key that never expires.
    expired: (db, now) => db('rate_limits').where('expire', '<=', now.getTime()).limit(BATCH).pluck('key'),
  },
];

/** Deletes every row past its retention; returns how many per table. */
export async function sweepRetention(db: Database, now: Date, limits: Limits): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const rule of RETENTION_RULES) {
    let count = 0;
    for (;;) {
      const keys = await rule.expired(db, now, limits);
      // The deleted keys, counted: a bare delete() answers a count on pg but a result object on the embedded database.
      if (keys.length > 0)
        count += (
          await db(rule.table)
            .whereIn(rule.key, keys as string[])
            .delete([rule.key])
        ).length;
      if (keys.length < BATCH) break;
    }
    deleted[rule.table] = count;
  }
  return deleted;
}

/**
 * Sweeps every SWEEP_EVERY_MS, like the oidc_payloads and interaction sweepers, each time after `beforeSweep` (what
 * must read the rows first: the statistics rollup); when it fails, nothing is swept this time.
 */
export function scheduleRetention(
  runtime: { db: Database; clock: Clock; config: Limits; log: Logger; onClose(stop: () => Promise<void>): void },
  beforeSweep: () => Promise<void>,
): void {
  schedulePeriodic(runtime, {
    name: 'sweeping verifications, flows ended without one, age proofs, webhook messages and rate limits past their retention',
    everyMs: SWEEP_EVERY_MS,
    run: async () => {
      await beforeSweep();
      const deleted = await sweepRetention(runtime.db, runtime.clock.now(), runtime.config);
      if (Object.values(deleted).some((count) => count > 0))
        runtime.log.debug('swept rows past their retention', { deleted });
    },
  });
}
