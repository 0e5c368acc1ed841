import type { Knex } from 'knex';
import type { Database } from '../store/database.js';

/** A discoverable WebAuthn credential of a visitor account (table visitor_passkeys): what checking its signatures needs. */
export interface StoredPasskey {
  accountId: number;
  /** base64url, as the browser reports it */
  credentialId: string;
  /** base64url of the account's WebAuthn user.id, returned by the authenticator with every assertion */
  userHandle: string;
  /** COSE public key */
  publicKey: Uint8Array;
  /** the authenticator's signature counter at its last accepted use (0 for authenticators that keep none) */
  counter: number;
  transports: string[];
}

export type NewPasskey = Omit<StoredPasskey, 'accountId'>;

interface Row {
  account_id: string | number;
  credential_id: string;
  user_handle: string;
  public_key: Uint8Array;
  counter: string | number;
  transports: string[];
}

// pg returns bigint as a string; counters are 32-bit and ids stay far below 2^53.
const passkeyOf = (row: Row): StoredPasskey => ({
  accountId: Number(row.account_id),
  credentialId: row.credential_id,
  userHandle: row.user_handle,
  publicKey: new Uint8Array(row.public_key),
  counter: Number(row.counter),
  transports: row.transports,
});

const rowOf = (accountId: number, passkey: NewPasskey) => ({
  account_id: accountId,
  credential_id: passkey.credentialId,
  user_handle: passkey.userHandle,
  public_key: Buffer.from(passkey.publicKey),
  counter: passkey.counter,
  transports: passkey.transports,
});

export async function findPasskey(db: Database, credentialId: string): Promise<StoredPasskey | undefined> {
  const row = await db<Row>('visitor_passkeys').where('credential_id', credentialId).first();
  return row ? passkeyOf(row) : undefined;
}

/** The account's passkeys (to keep an authenticator from registering a second one for the same account). */
export async function passkeysOf(db: Database, accountId: number): Promise<StoredPasskey[]> {
  return (await db<Row>('visitor_passkeys').where('account_id', accountId).orderBy('id')).map(passkeyOf);
}

/**
 * Inserts the passkey unless its credential id is already stored (false then). WebAuthn ids are random, but without
 * attestation a forged registration may claim any id: it must be refused, never take over or break another account.
 */
async function insertPasskey(
  db: Database | Knex.Transaction,
  accountId: number,
  passkey: NewPasskey,
): Promise<boolean> {
  const inserted = await db('visitor_passkeys')
    .insert(rowOf(accountId, passkey))
    .onConflict('credential_id')
    .ignore()
    .returning('id');
  return inserted.length === 1;
}

class CredentialTaken extends Error {}

/** A new visitor account whose only way in is this passkey (no username, no password, no email); undefined when the credential id is taken. */
export async function createPasskeyAccount(db: Database, passkey: NewPasskey): Promise<number | undefined> {
  try {
    return await db.transaction(async (trx) => {
      const [account] = await trx('visitor_accounts').insert({}).returning<Array<{ id: string | number }>>('id');
      const accountId = Number(account!.id);
      if (!(await insertPasskey(trx, accountId, passkey))) throw new CredentialTaken(); // rolls the account back
      return accountId;
    });
  } catch (error) {
    if (error instanceof CredentialTaken) return undefined;
    throw error;
  }
}

/** Another passkey for an account (a second device, or a password account gaining one); false when the credential id is taken. */
export const addPasskey = (db: Database, accountId: number, passkey: NewPasskey): Promise<boolean> =>
  insertPasskey(db, accountId, passkey);

/**
 * Records an accepted use. Compare-and-set on the counter the signature was checked against, so two assertions
 * racing with the same counter (a cloned authenticator) cannot both be accepted. False when another use won.
 */
export async function recordPasskeyUse(
  db: Database,
  passkey: StoredPasskey,
  newCounter: number,
  at: Date,
): Promise<boolean> {
  const updated = await db('visitor_passkeys')
    .where({ credential_id: passkey.credentialId, counter: passkey.counter })
    .update({ counter: newCounter, last_used_at: at });
  return updated === 1;
}
