import { createHash, type X509Certificate } from 'node:crypto';
import type { Logger } from '../../../log.js';
import { isStorableInstant } from '../../../statistics/days.js';
import type { Database } from '../../../store/database.js';
import type { TrustAnchors } from './trust-anchors.js';

/** The trusted list eu_av used, as an auditor matches it against its publisher's issues. */
export interface ListTrust {
  sequenceNumber: number | null;
  issued: string;
  nextUpdate: string | null;
  type: string;
  /** SHA-256 fingerprints of the anchors taken from it */
  anchors: string[];
}

/** What eu_av trusted: the operator's anchor files and the trusted list's anchors (none: no list, or none read yet). */
export interface EuAvTrust {
  /** SHA-256 fingerprints (colon-separated hex, as openssl prints them) of the anchors from the operator's files */
  files: string[];
  list: ListTrust | null;
}

/** A trust and the moment it was taken into use. */
export interface TrustPeriod {
  inForceFrom: string;
  trust: EuAvTrust;
}

/** The fingerprints of a set of anchors, sorted: the same anchors give the same list whatever their order. */
export const fingerprintsOf = (anchors: TrustAnchors): string[] =>
  [...anchors.authorities, ...anchors.signers].map((certificate: X509Certificate) => certificate.fingerprint256).sort();

const digestOf = (trust: EuAvTrust): string => createHash('sha256').update(JSON.stringify(trust)).digest('hex');

/**
 * Records `trust` as in force from `at` unless it is already the newest recorded: an instance's restart or a refresh
 * that reads the same list adds nothing. Instances racing may both add the same trust: a repeated row changes no
 * period. A failure is logged and otherwise ignored: eu_av keeps verifying with the trust it has.
 */
export async function recordTrust(runtime: { db: Database; log: Logger }, at: Date, trust: EuAvTrust): Promise<void> {
  const digest = digestOf(trust);
  try {
    const newest = await runtime
      .db('eu_av_trust')
      .orderBy([
        { column: 'in_force_from', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .first<{ digest: string } | undefined>('digest');
    if (newest?.digest === digest) return;
    await runtime.db('eu_av_trust').insert({ in_force_from: at, digest, trust: JSON.stringify(trust) });
  } catch (error) {
    runtime.log.warn('eu_av trust not recorded (evidence exports will not show it)', {
      error: (error as Error).message,
    });
  }
}

/**
 * The trusts in force from `start` to `end` (exclusive): the one taken into use last before `start`, then each
 * taken into use during the period, oldest first.
 */
export async function trustDuring(db: Database, start: Date, end: Date): Promise<TrustPeriod[]> {
  const columns = ['id', 'in_force_from', 'trust'];
  const before = await db('eu_av_trust')
    .where('in_force_from', '<', start)
    .orderBy([
      { column: 'in_force_from', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first<{ in_force_from: Date; trust: EuAvTrust } | undefined>(columns);
  const during = await db('eu_av_trust')
    .where('in_force_from', '>=', start)
    // A period ending on 9999-12-31 ends in year 10000, which not every driver can send: nothing is recorded after it.
    .modify((query) => {
      if (isStorableInstant(end)) query.where('in_force_from', '<', end);
    })
    .orderBy(['in_force_from', 'id'])
    .select<Array<{ in_force_from: Date; trust: EuAvTrust }>>(columns);
  return [...(before ? [before] : []), ...during].map((row) => ({
    inForceFrom: new Date(row.in_force_from).toISOString(),
    trust: row.trust,
  }));
}
