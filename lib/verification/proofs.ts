import type { Knex } from 'knex';
import { addSeconds, type Clock } from '../clock.js';
import type { Database } from '../store/database.js';
import type { AssuranceLevel, Environment } from './challenge.js';
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
  verification: Pick<Verification, 'challenge' | 'assuranceLevel' | 'ageThreshold' | 'environment' | 'verifiedAt'>, subject: string, reusableSeconds: number,
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

/** A proof's insert: run alone (saveProof), or inside the statement that records its verification. */
export function proofInsert(db: Database, proof: AgeProof): Knex.QueryBuilder {
  return db('age_proofs').insert({
    subject: proof.subject,
    method: proof.challenge,
    assurance_level: proof.assuranceLevel,
    age_threshold: proof.ageThreshold,
    environment: proof.environment,
    proven_at: proof.provenAt,
    reusable_until: proof.reusableUntil,
  });
}

/**
 * The subject's most recent proof that is still reusable, from the same environment (a sandbox proof never
 * serves a LIVE website) and proving at least `ageThreshold`.
 */
export async function findReusableProof(
  db: Database, clock: Clock, query: { subject: string; environment: Environment; ageThreshold: number },
): Promise<AgeProof | undefined> {
  const row = await db<Row>('age_proofs')
    .where({ subject: query.subject, environment: query.environment })
    .where('age_threshold', '>=', query.ageThreshold)
    .where('reusable_until', '>', clock.now())
    .orderBy('proven_at', 'desc')
    .first();
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
