import type { Knex } from 'knex';
import { addSeconds, type Clock } from '../clock.js';
import type { Database } from '../store/database.js';
import { ASSURANCE_LEVELS, type AssuranceLevel, type Environment } from './challenge.js';
import type { Verification } from './verifications.js';

/**
 * An age proof a subject may reuse instead of passing a challenge again. Subjects: `acct:<id>` for a visitor
 * account, `anon:<random>` for the anonymous visitor of one browser session.
 */
export interface AgeProof {
  subject: string;
  /** the challenge passed (column `method`) */
  challenge: string;
  assuranceLevel: AssuranceLevel;
  ageThreshold: number;
  environment: Environment;
  provenAt: Date;
  reusableUntil: Date;
}

export const accountSubject = (accountId: number): string => `acct:${accountId}`;

/** What a verification (recorded, or about to be) proves, for `subject` to reuse during `reusableSeconds` after it was made. */
export const proofOf = (
  verification: Pick<Verification, 'challenge' | 'assuranceLevel' | 'ageThreshold' | 'environment' | 'verifiedAt'>,
  subject: string,
  reusableSeconds: number,
): AgeProof => ({
  subject,
  challenge: verification.challenge,
  assuranceLevel: verification.assuranceLevel,
  ageThreshold: verification.ageThreshold,
  environment: verification.environment,
  provenAt: verification.verifiedAt,
  reusableUntil: addSeconds(verification.verifiedAt, reusableSeconds),
});

interface Row {
  subject: string;
  method: string;
  assurance_level: AssuranceLevel;
  age_threshold: number;
  environment: Environment;
  proven_at: Date;
  reusable_until: Date;
}

export async function saveProof(db: Database, proof: AgeProof): Promise<void> {
  await proofInsert(db, proof);
}

/** A proof's row, as written by its insert or by a conditional one (progress.ts). */
export const proofRow = (proof: AgeProof): Record<string, Knex.Value> => ({
  subject: proof.subject,
  method: proof.challenge,
  assurance_level: proof.assuranceLevel,
  age_threshold: proof.ageThreshold,
  environment: proof.environment,
  proven_at: proof.provenAt,
  reusable_until: proof.reusableUntil,
});

/** A proof's insert: run alone (saveProof), or inside the statement that records its verification. */
export const proofInsert = (db: Database, proof: AgeProof): Knex.QueryBuilder =>
  db('age_proofs').insert(proofRow(proof));

/** What a reused proof must satisfy besides its subject and environment. */
interface ReuseQuery {
  subject: string;
  environment: Environment;
  ageThreshold: number;
  /** at least this level (STANDARD: any) */
  minimumLevel?: AssuranceLevel;
  /** made at most this many seconds ago */
  maxAgeSeconds?: number;
  /** made by passing one of these challenges */
  challenges?: readonly string[];
  /** not made by these (challenges the rule no longer allows: past their `challengesUntil`) */
  retired?: readonly string[];
  /**
   * For a proof made by an age estimation (these challenges), the age it proved must also cover the rule's estimation
   * buffer: `ageThreshold + estimationBuffer`. A proof keeps the age it proved, not the buffer it was judged with, so
   * this asks the most a fresh estimation would.
   */
  estimation?: { challenges: readonly string[]; buffer: number };
}

/**
 * The subject's most recent proof that is still reusable, from the same environment (a sandbox proof never
 * serves a LIVE website), proving at least `ageThreshold`, and as recent, strong and of the challenges the query asks.
 */
export async function findReusableProof(db: Database, clock: Clock, query: ReuseQuery): Promise<AgeProof | undefined> {
  const now = clock.now();
  const levels = ASSURANCE_LEVELS.slice(ASSURANCE_LEVELS.indexOf(query.minimumLevel ?? 'STANDARD'));
  let select = db<Row>('age_proofs')
    .where({ subject: query.subject, environment: query.environment })
    .where('age_threshold', '>=', query.ageThreshold)
    .where('reusable_until', '>', now);
  if (levels.length < ASSURANCE_LEVELS.length) select = select.whereIn('assurance_level', levels);
  if (query.maxAgeSeconds !== undefined)
    select = select.where('proven_at', '>=', addSeconds(now, -query.maxAgeSeconds));
  if (query.challenges) select = select.whereIn('method', [...query.challenges]);
  if (query.retired?.length) select = select.whereNotIn('method', [...query.retired]);
  const { estimation } = query;
  if (estimation && estimation.buffer > 0 && estimation.challenges.length > 0) {
    select = select.where((proof) => {
      proof
        .whereNotIn('method', [...estimation.challenges])
        .orWhere('age_threshold', '>=', query.ageThreshold + estimation.buffer);
    });
  }
  const row = await select.orderBy('proven_at', 'desc').first();
  return row
    ? {
        subject: row.subject,
        challenge: row.method,
        assuranceLevel: row.assurance_level,
        ageThreshold: row.age_threshold,
        environment: row.environment,
        provenAt: new Date(row.proven_at),
        reusableUntil: new Date(row.reusable_until),
      }
    : undefined;
}
