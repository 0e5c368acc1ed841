import type { Knex } from 'knex';
import type { Clock } from '../../clock.js';
import type { Sealer } from '../../security/sealing.js';
import type { Database } from '../../store/database.js';
import { insertWhere } from '../../store/insert-where.js';
import type { StoredPayload } from '../../store/oidc-payloads.js';
import { runPrepared, type PreparedStatement } from '../../store/prepared.js';
import type { StepContext } from '../../verification/challenge.js';
import {
  verificationFromRow,
  verificationJson,
  type Verification,
  type VerificationRow,
} from '../../verification/verifications.js';

/** Where the visitor is in one interaction (table interaction_progress; rows die with the interaction). */
export interface Progress {
  acceptedAt: Date | null;
  /** the visitor account signed in during this interaction */
  accountId: number | null;
  /** the verification recorded by a pass, waiting for the visitor to continue to the website */
  verificationUid: string | null;
  /** the challenge under way and its private state, sealed (read through challengeState) */
  challenge: { name: string; sealedState: string } | null;
  /** the verification `verificationUid` names, read with the progress */
  verification: Verification | null;
}

export const NOTHING_YET: Progress = {
  acceptedAt: null,
  accountId: null,
  verificationUid: null,
  challenge: null,
  verification: null,
};

interface Row {
  accepted_at: Date | null;
  account_id: number | null;
  verification_uid: string | null;
  challenge: string | null;
  challenge_state_sealed: string | null;
}

const toProgress = (row: Row, verification: VerificationRow | null): Progress => ({
  acceptedAt: row.accepted_at ? new Date(row.accepted_at) : null,
  accountId: row.account_id,
  verificationUid: row.verification_uid,
  challenge:
    row.challenge && row.challenge_state_sealed
      ? { name: row.challenge, sealedState: row.challenge_state_sealed }
      : null,
  verification: verification ? verificationFromRow(verification) : null,
});

/** The progress of interaction `uid` (and its recorded verification), outside a page (e.g. a wallet's response). */
export async function readProgress(db: Database, clock: Clock, uid: string): Promise<Progress> {
  const row = await db('interaction_progress as progress')
    .leftJoin('verifications as verification', 'verification.uid', 'progress.verification_uid')
    .where('progress.uid', uid)
    .where('progress.expires_at', '>', clock.now())
    .first<(Row & { verification: VerificationRow | null }) | undefined>(
      'progress.accepted_at',
      'progress.account_id',
      'progress.verification_uid',
      'progress.challenge',
      'progress.challenge_state_sealed',
      db.raw(`${verificationJson('verification')} AS verification`),
    );
  return row ? toProgress(row, row.verification) : NOTHING_YET;
}

/** oidc-provider's stored interaction, as its adapter keeps it. */
export type InteractionRow = StoredPayload;

/** A page's one read, prepared once per connection (every page of every flow runs it). */
const VISIT_ROWS: PreparedStatement = {
  name: 'interaction_visit_rows',
  text: `SELECT interaction.payload, interaction.consumed_at, progress.uid IS NOT NULL AS has_progress, progress.accepted_at,
               progress.account_id, progress.verification_uid, progress.challenge, progress.challenge_state_sealed,
               ${verificationJson('verification')} AS verification
          FROM oidc_payloads interaction
          LEFT JOIN interaction_progress progress ON progress.uid = interaction.id AND progress.expires_at > $1
          LEFT JOIN verifications verification ON verification.uid = progress.verification_uid
         WHERE interaction.type = 'Interaction' AND interaction.id = $2
           AND (interaction.expires_at IS NULL OR interaction.expires_at > $1)`,
};

/**
 * A page's one read: the interaction (oidc-provider's row, from which visit.ts builds the model), this
 * visit's progress and the verification it recorded. Undefined interaction: unknown or expired.
 */
export async function readVisitRows(
  db: Database,
  clock: Clock,
  uid: string,
): Promise<{ interaction: InteractionRow | undefined; progress: Progress }> {
  const [row] = await runPrepared<
    InteractionRow & Partial<Row> & { has_progress: boolean; verification: VerificationRow | null }
  >(db, VISIT_ROWS, [clock.now(), uid]);
  if (!row) return { interaction: undefined, progress: NOTHING_YET };
  const interaction = { payload: row.payload, consumed_at: row.consumed_at };
  if (!row.has_progress) return { interaction, progress: NOTHING_YET };
  return { interaction, progress: toProgress(row as Row, row.verification) };
}

type Changes = Partial<
  Pick<Row, 'accepted_at' | 'account_id' | 'verification_uid' | 'challenge' | 'challenge_state_sealed'>
>;

/** Creates or updates the interaction's row; `expiresAt` is the interaction's own expiry. */
export async function updateProgress(db: Database, uid: string, expiresAt: Date, changes: Changes): Promise<void> {
  await db('interaction_progress')
    .insert({ uid, expires_at: expiresAt, ...changes })
    .onConflict('uid')
    .merge(Object.keys(changes));
}

/**
 * The visitor accepted the prompt: true when this statement recorded it, false when it was already (a second submit,
 * on any instance), so the funnel counts each acceptance once without a statement more (docs/statistics.md).
 */
export async function recordAcceptance(db: Database, uid: string, expiresAt: Date, at: Date): Promise<boolean> {
  const recorded = await db('interaction_progress')
    .insert({ uid, expires_at: expiresAt, accepted_at: at })
    .onConflict('uid')
    .merge(['accepted_at'])
    .whereNull('interaction_progress.accepted_at')
    .returning('uid');
  return recorded.length === 1;
}

/**
 * A challenge passed by a visitor who may still save the result: the verification inserted, the browser's proof of
 * it, and this interaction's progress pointing at it with the challenge's state ended, in one statement (all or none).
 * Once per interaction: the statement locks the progress row first, and a repeat of the passing submit (a double
 * click) that waited for that lock finds the verification recorded and writes nothing.
 */
export async function recordPassedChallenge(
  db: Database,
  uid: string,
  expiresAt: Date,
  verification: Record<string, Knex.Value>,
  proof: Record<string, Knex.Value>,
): Promise<void> {
  await db.raw(
    `WITH locked AS (SELECT verification_uid FROM interaction_progress WHERE uid = ? FOR UPDATE),
          verification AS (?),
          proof AS (?)
     INSERT INTO interaction_progress (uid, expires_at, verification_uid, challenge, challenge_state_sealed)
     SELECT ?, ?, uid, NULL, NULL FROM verification
     ON CONFLICT (uid) DO UPDATE SET verification_uid = EXCLUDED.verification_uid, challenge = NULL, challenge_state_sealed = NULL`,
    [
      uid,
      insertWhere(
        db,
        'verifications',
        verification,
        'NOT EXISTS (SELECT 1 FROM locked WHERE verification_uid IS NOT NULL)',
        'uid',
      ),
      insertWhere(db, 'age_proofs', proof, 'EXISTS (SELECT 1 FROM verification)'),
      uid,
      expiresAt,
    ],
  );
}

/**
 * Gives the verification this interaction recorded to a new account, once: false when an account already has it (a
 * concurrent "save" won). Run in the transaction that creates the account, so the loser's account is rolled back.
 */
export async function claimVerificationForAccount(
  db: Database,
  uid: string,
  verificationUid: string,
  accountId: number,
): Promise<boolean> {
  const claimed = await db('interaction_progress')
    .where({ uid, verification_uid: verificationUid })
    .whereNull('account_id')
    .update({ account_id: accountId });
  return claimed === 1;
}

/**
 * The interaction is over (handed to the website or declined): nothing of it is kept. The deletion is written with
 * the interaction's end (outcome.ts finishInteraction).
 */
export const progressDeletion = (db: Database, uid: string): Knex.QueryBuilder =>
  db('interaction_progress').where('uid', uid).delete();

export async function sweepExpiredProgress(db: Database, clock: Clock): Promise<void> {
  await db('interaction_progress').where('expires_at', '<=', clock.now()).delete();
}

/**
 * Replaces a challenge's sealed state only while it is still `expected`: when two writers race (a wallet posting the
 * same answer twice), exactly one wins. False when the state changed or the interaction is gone.
 */
export async function swapChallengeState(
  db: Database,
  uid: string,
  challenge: string,
  expected: string,
  sealedState: string,
): Promise<boolean> {
  const changed = await db('interaction_progress')
    .where({ uid, challenge, challenge_state_sealed: expected })
    .update({ challenge_state_sealed: sealedState });
  return changed === 1;
}

export type ChallengeState = StepContext['state'] & { clear(): Promise<void> };

/**
 * One challenge's private state in this interaction, sealed at rest; starting another challenge replaces it.
 * Reads the progress the request already loaded, and keeps what this request writes.
 */
export function challengeState(
  runtime: { db: Database; sealer: Sealer },
  interaction: { uid: string; expiresAt: Date; progress: Progress },
  challenge: string,
): ChallengeState {
  const { db, sealer } = runtime;
  let sealed =
    interaction.progress.challenge?.name === challenge ? interaction.progress.challenge.sealedState : undefined;
  return {
    async get<T>() {
      return sealed === undefined ? undefined : (JSON.parse(sealer.unseal(sealed)) as T);
    },
    async set<T>(value: T) {
      const sealedState = sealer.seal(JSON.stringify(value));
      await updateProgress(db, interaction.uid, interaction.expiresAt, {
        challenge,
        challenge_state_sealed: sealedState,
      });
      sealed = sealedState;
    },
    async clear() {
      await db('interaction_progress')
        .where('uid', interaction.uid)
        .update({ challenge: null, challenge_state_sealed: null });
      sealed = undefined;
    },
  };
}
