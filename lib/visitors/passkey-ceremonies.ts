import { addSeconds, type Clock } from '../clock.js';
import type { Database } from '../store/database.js';

/** Registering a passkey (saving a result) or signing in with one. */
export type CeremonyPurpose = 'register' | 'sign_in';

export interface Ceremony {
  /** base64url, as sent to the browser in the options */
  challenge: string;
  /** registration only: the user.id the new credential is created for */
  userHandle: string | null;
}

/** How long the browser has between asking for options and answering (the WebAuthn timeout sent is shorter). */
const CEREMONY_SECONDS = 300;

/**
 * Remembers the challenge sent for one ceremony of one interaction (table passkey_ceremonies). A new request
 * replaces the previous one, so each interaction has at most one live challenge per purpose.
 */
export async function startCeremony(
  db: Database,
  clock: Clock,
  interactionUid: string,
  purpose: CeremonyPurpose,
  ceremony: Ceremony,
): Promise<void> {
  await db('passkey_ceremonies')
    .insert({
      interaction_uid: interactionUid,
      purpose,
      challenge: ceremony.challenge,
      user_handle: ceremony.userHandle,
      expires_at: addSeconds(clock.now(), CEREMONY_SECONDS),
    })
    .onConflict(['interaction_uid', 'purpose'])
    .merge(['challenge', 'user_handle', 'expires_at']);
}

/** The ceremony's challenge, deleted as it is read: each challenge answers at most one response. */
export async function takeCeremony(
  db: Database,
  clock: Clock,
  interactionUid: string,
  purpose: CeremonyPurpose,
): Promise<Ceremony | undefined> {
  const [row] = await db('passkey_ceremonies')
    .where({ interaction_uid: interactionUid, purpose })
    .delete()
    .returning<Array<{ challenge: string; user_handle: string | null; expires_at: Date }>>([
      'challenge',
      'user_handle',
      'expires_at',
    ]);
  if (!row || new Date(row.expires_at) <= clock.now()) return undefined;
  return { challenge: row.challenge, userHandle: row.user_handle };
}
