import { record } from '../audit/trail.js';
import type { ChangeOrigin } from '../changes.js';
import type { Clock } from '../clock.js';
import type { Database } from '../store/database.js';
import type { NewPasskey } from '../visitors/passkeys.js';
import { forgetRecoveryCodesWithoutFactor, hasSecondFactor, issueRecoveryCodes } from './second-factors.js';

/**
 * Passkeys as a webmaster's second factor (table webmaster_passkeys). Unlike a visitor's, a webmaster's passkey never
 * signs in alone: it is asked for after the password or the mailed code, by an allow list of the webmaster's own
 * credentials, so the page can also name them ("Chrome on macOS", added on…).
 */
export interface WebmasterPasskey extends NewPasskey {
  id: number;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

interface Row {
  id: string | number;
  credential_id: string;
  user_handle: string;
  public_key: Uint8Array;
  counter: string | number;
  transports: string[];
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

// pg returns bigint as a string; counters are 32-bit and ids stay far below 2^53.
const passkeyOf = (row: Row): WebmasterPasskey => ({
  id: Number(row.id),
  credentialId: row.credential_id,
  userHandle: row.user_handle,
  publicKey: new Uint8Array(row.public_key),
  counter: Number(row.counter),
  transports: row.transports,
  name: row.name,
  createdAt: new Date(row.created_at),
  lastUsedAt: row.last_used_at && new Date(row.last_used_at),
});

/** The webmaster's passkeys, oldest first. */
export async function webmasterPasskeys(db: Database, webmasterId: number): Promise<WebmasterPasskey[]> {
  return (await db<Row>('webmaster_passkeys').where('webmaster_id', webmasterId).orderBy('id')).map(passkeyOf);
}

/** The webmaster's passkey with this credential id: another webmaster's credential is not found. */
export async function webmasterPasskey(
  db: Database,
  webmasterId: number,
  credentialId: string,
): Promise<WebmasterPasskey | undefined> {
  const row = await db<Row>('webmaster_passkeys')
    .where('webmaster_id', webmasterId)
    .where('credential_id', credentialId)
    .first();
  return row && passkeyOf(row);
}

/**
 * Adds a passkey, audited. When it is the webmaster's first second factor, recovery codes are made (returned once,
 * to be shown), as for an authenticator app. Undefined when the credential id is already stored (without attestation
 * a forged registration may claim any id: it must never take over another webmaster's passkey).
 */
export async function addWebmasterPasskey(
  { db, clock }: { db: Database; clock: Clock },
  webmasterId: number,
  passkey: NewPasskey & { name: string },
  origin: ChangeOrigin,
): Promise<{ recoveryCodes: string[] } | undefined> {
  return db.transaction(async (trx) => {
    const first = !(await hasSecondFactor(trx, webmasterId));
    const inserted = await trx('webmaster_passkeys')
      .insert({
        webmaster_id: webmasterId,
        credential_id: passkey.credentialId,
        user_handle: passkey.userHandle,
        public_key: Buffer.from(passkey.publicKey),
        counter: passkey.counter,
        transports: passkey.transports,
        name: passkey.name,
        created_at: clock.now(),
      })
      .onConflict('credential_id')
      .ignore()
      .returning('id');
    if (inserted.length === 0) return undefined;
    await record(trx, {
      origin,
      webmasterId,
      websiteId: null,
      at: clock.now(),
      action: 'webmaster.second_factor.added',
      before: null,
      after: { passkey: passkey.name },
    });
    return { recoveryCodes: first ? await issueRecoveryCodes(trx, webmasterId) : [] };
  });
}

/**
 * Records an accepted use. Compare-and-set on the counter the signature was checked against, so two assertions
 * racing with the same counter (a cloned authenticator, a double submit) cannot both be accepted.
 */
export async function recordWebmasterPasskeyUse(
  db: Database,
  passkey: WebmasterPasskey,
  newCounter: number,
  at: Date,
): Promise<boolean> {
  const updated = await db('webmaster_passkeys')
    .where({ id: passkey.id, counter: passkey.counter })
    .update({ counter: newCounter, last_used_at: at });
  return updated === 1;
}

/**
 * Removes one of the webmaster's passkeys, audited; the recovery codes go with the last second factor. False when it
 * is not theirs (or already gone).
 */
export async function removeWebmasterPasskey(
  { db, clock }: { db: Database; clock: Clock },
  webmasterId: number,
  id: number,
  origin: ChangeOrigin,
): Promise<boolean> {
  return db.transaction(async (trx) => {
    const [removed] = await trx('webmaster_passkeys')
      .where({ id, webmaster_id: webmasterId })
      .delete()
      .returning<Array<{ name: string }>>('name');
    if (!removed) return false;
    await forgetRecoveryCodesWithoutFactor(trx, webmasterId);
    await record(trx, {
      origin,
      webmasterId,
      websiteId: null,
      at: clock.now(),
      action: 'webmaster.second_factor.removed',
      before: { passkey: removed.name },
      after: null,
    });
    return true;
  });
}
