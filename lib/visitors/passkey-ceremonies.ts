import { addSeconds, type Clock } from '../clock.js';
import type { Database } from '../store/database.js';

/** Registering a passkey (saving a result, adding a second factor) or signing in with one. */
export type CeremonyPurpose = 'register' | 'sign_in';

export interface Ceremony {
  /** base64url, as sent to the browser in the options */
  challenge: string;
  /** registration only: the user.id the new credential is created for */
  userHandle: string | null;
}

/** How long the browser has between asking for options and answering (the WebAuthn timeout sent is shorter). */
const CEREMONY_SECONDS = 300;

/** The live challenges of one kind of owner: a visitor's interaction, a webmaster's platform session. */
export interface Ceremonies {
  /** Remembers the challenge sent; a new request replaces the previous one (one live challenge per owner and purpose). */
  start(db: Database, clock: Clock, owner: string, purpose: CeremonyPurpose, ceremony: Ceremony): Promise<void>;
  /** The ceremony's challenge, deleted as it is read: each challenge answers at most one response. */
  take(db: Database, clock: Clock, owner: string, purpose: CeremonyPurpose): Promise<Ceremony | undefined>;
}

function ceremoniesIn(table: string, ownerColumn: string): Ceremonies {
  return {
    async start(db, clock, owner, purpose, ceremony) {
      await db(table)
        .insert({
          [ownerColumn]: owner,
          purpose,
          challenge: ceremony.challenge,
          user_handle: ceremony.userHandle,
          expires_at: addSeconds(clock.now(), CEREMONY_SECONDS),
        })
        .onConflict([ownerColumn, 'purpose'])
        .merge(['challenge', 'user_handle', 'expires_at']);
    },
    async take(db, clock, owner, purpose) {
      const [row] = await db(table)
        .where({ [ownerColumn]: owner, purpose })
        .delete()
        .returning<Array<{ challenge: string; user_handle: string | null; expires_at: Date }>>([
          'challenge',
          'user_handle',
          'expires_at',
        ]);
      if (!row || new Date(row.expires_at) <= clock.now()) return undefined;
      return { challenge: row.challenge, userHandle: row.user_handle };
    },
  };
}

/** A visitor's ceremonies, by interaction (table passkey_ceremonies, gone with the interaction). */
export const interactionCeremonies = ceremoniesIn('passkey_ceremonies', 'interaction_uid');

/** A webmaster's ceremonies, by the SHA-256 of the platform session's id (gone with the session). */
export const sessionCeremonies = ceremoniesIn('webmaster_passkey_ceremonies', 'session_hash');
