import type { Clock } from '../../clock.js';
import type { Sealer } from '../../security/sealing.js';
import type { Database } from '../../store/database.js';
import type { StepContext } from '../../verification/challenge.js';

/** Where the visitor is in one interaction (table interaction_progress; rows die with the interaction). */
export interface Progress {
  acceptedAt: Date | null;
  /** the visitor account signed in during this interaction */
  accountId: number | null;
  /** the verification recorded by a pass, waiting for the visitor to continue to the website */
  verificationUid: string | null;
  /** the challenge under way and its private state, sealed (read through challengeState) */
  challenge: { name: string; sealedState: string } | null;
}

export const NOTHING_YET: Progress = { acceptedAt: null, accountId: null, verificationUid: null, challenge: null };

interface Row {
  accepted_at: Date | null;
  account_id: number | null;
  verification_uid: string | null;
  challenge: string | null;
  challenge_state_sealed: string | null;
}

export async function readProgress(db: Database, clock: Clock, uid: string): Promise<Progress> {
  const row = await db<Row>('interaction_progress')
    .where('uid', uid)
    .where('expires_at', '>', clock.now())
    .first('accepted_at', 'account_id', 'verification_uid', 'challenge', 'challenge_state_sealed');
  if (!row) return NOTHING_YET;
  return {
    acceptedAt: row.accepted_at ? new Date(row.accepted_at) : null,
    accountId: row.account_id,
    verificationUid: row.verification_uid,
    challenge: row.challenge && row.challenge_state_sealed ? { name: row.challenge, sealedState: row.challenge_state_sealed } : null,
  };
}

type Changes = Partial<Pick<Row, 'accepted_at' | 'account_id' | 'verification_uid' | 'challenge' | 'challenge_state_sealed'>>;

/** Creates or updates the interaction's row; `expiresAt` is the interaction's own expiry. */
export async function updateProgress(db: Database, uid: string, expiresAt: Date, changes: Changes): Promise<void> {
  await db('interaction_progress')
    .insert({ uid, expires_at: expiresAt, ...changes })
    .onConflict('uid')
    .merge(Object.keys(changes));
}

/**
 * Gives the verification this interaction recorded to a new account, once: false when an account already has it (a
 * concurrent "save" won). Run in the transaction that creates the account, so the loser's account is rolled back.
 */
export async function claimVerificationForAccount(db: Database, uid: string, verificationUid: string, accountId: number): Promise<boolean> {
  const claimed = await db('interaction_progress')
    .where({ uid, verification_uid: verificationUid })
    .whereNull('account_id')
    .update({ account_id: accountId });
  return claimed === 1;
}

/** The interaction is over (handed to the website or declined): nothing of it is kept. */
export async function forgetProgress(db: Database, uid: string): Promise<void> {
  await db('interaction_progress').where('uid', uid).delete();
}

export async function sweepExpiredProgress(db: Database, clock: Clock): Promise<void> {
  await db('interaction_progress').where('expires_at', '<=', clock.now()).delete();
}

/**
 * Replaces a challenge's sealed state only while it is still `expected`: when two writers race (a wallet posting the
 * same answer twice), exactly one wins. False when the state changed or the interaction is gone.
 */
export async function swapChallengeState(db: Database, uid: string, challenge: string, expected: string, sealedState: string): Promise<boolean> {
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
  runtime: { db: Database; sealer: Sealer }, interaction: { uid: string; expiresAt: Date; progress: Progress }, challenge: string,
): ChallengeState {
  const { db, sealer } = runtime;
  let sealed = interaction.progress.challenge?.name === challenge ? interaction.progress.challenge.sealedState : undefined;
  return {
    async get<T>() {
      return sealed === undefined ? undefined : (JSON.parse(sealer.unseal(sealed)) as T);
    },
    async set<T>(value: T) {
      const sealedState = sealer.seal(JSON.stringify(value));
      await updateProgress(db, interaction.uid, interaction.expiresAt, { challenge, challenge_state_sealed: sealedState });
      sealed = sealedState;
    },
    async clear() {
      await db('interaction_progress').where('uid', interaction.uid).update({ challenge: null, challenge_state_sealed: null });
      sealed = undefined;
    },
  };
}
