import type { Knex } from 'knex';
import { randomBytes } from 'node:crypto';
import { record } from '../audit/trail.js';
import { SECRET_CHANGED, type ChangeOrigin } from '../changes.js';
import type { Clock } from '../clock.js';
import { base32, matchTotp, newTotpSecret } from '../security/totp.js';
import { safeEqual, sha256 } from '../security/hashing.js';
import type { Sealer } from '../security/sealing.js';
import type { Database } from '../store/database.js';

/** Recovery codes given at once: each works once, for a lost phone. */
export const RECOVERY_CODES = 10;

interface Deps {
  db: Database;
  clock: Clock;
  sealer: Sealer;
}

/** 80 random bits as four groups of four base32 letters: typed by hand, too long to search for from their digests. */
const newRecoveryCode = (): string => base32(randomBytes(10)).toLowerCase().match(/.{4}/g)!.join('-');
const recoveryDigest = (code: string): string => sha256(`recovery:${code.toLowerCase().replace(/[^a-z2-7]/g, '')}`);

/** Whether the webmaster has a second factor in force: a confirmed authenticator app or a passkey. */
export async function hasSecondFactor(q: Database | Knex.Transaction, webmasterId: number): Promise<boolean> {
  const totp = await q('webmaster_totp')
    .where('webmaster_id', webmasterId)
    .whereNotNull('confirmed_at')
    .first('webmaster_id');
  if (totp) return true;
  return (await q('webmaster_passkeys').where('webmaster_id', webmasterId).first('id')) !== undefined;
}

/** Whether the webmaster has an authenticator app in force (the page offers to add one otherwise). */
export async function hasTotp(db: Database, webmasterId: number): Promise<boolean> {
  return (
    (await db('webmaster_totp')
      .where('webmaster_id', webmasterId)
      .whereNotNull('confirmed_at')
      .first('webmaster_id')) !== undefined
  );
}

/** New recovery codes replacing any earlier ones, returned once (kept as digests). */
export async function issueRecoveryCodes(trx: Knex.Transaction, webmasterId: number): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
  await trx('webmaster_recovery_codes').where('webmaster_id', webmasterId).delete();
  await trx('webmaster_recovery_codes').insert(
    codes.map((recovery) => ({ webmaster_id: webmasterId, code_hash: recoveryDigest(recovery) })),
  );
  return codes;
}

/** Recovery codes stand in for a second factor: with none left in force they would be a way in of their own. */
export async function forgetRecoveryCodesWithoutFactor(trx: Knex.Transaction, webmasterId: number): Promise<void> {
  if (!(await hasSecondFactor(trx, webmasterId)))
    await trx('webmaster_recovery_codes').where('webmaster_id', webmasterId).delete();
}

/** The live recovery codes left, for the page that says how many remain. */
export async function recoveryCodesLeft(db: Database, webmasterId: number): Promise<number> {
  return (await db('webmaster_recovery_codes').where('webmaster_id', webmasterId).whereNull('used_at').select('id'))
    .length;
}

/**
 * A new authenticator secret for a webmaster without one in force, replacing one being added; returned once, to be
 * shown (base32 and a QR code). It counts only once confirmTotp took a code made from it.
 */
export async function startTotp({ db, clock, sealer }: Deps, webmasterId: number): Promise<Buffer> {
  const secret = newTotpSecret();
  await db('webmaster_totp').where('webmaster_id', webmasterId).whereNull('confirmed_at').delete();
  await db('webmaster_totp')
    .insert({
      webmaster_id: webmasterId,
      secret_sealed: sealer.seal(secret.toString('base64')),
      created_at: clock.now(),
    })
    .onConflict('webmaster_id')
    .ignore();
  return secret;
}

/** The secret being added (to show it again after a wrong code), if any. */
export async function pendingTotp({ db, sealer }: Deps, webmasterId: number): Promise<Buffer | undefined> {
  const row = await db('webmaster_totp')
    .where('webmaster_id', webmasterId)
    .whereNull('confirmed_at')
    .first<{ secret_sealed: string } | undefined>('secret_sealed');
  return row && Buffer.from(sealer.unseal(row.secret_sealed), 'base64');
}

/**
 * Confirms the secret being added with a code made from it: it is in force from now on, and new recovery codes
 * replace any earlier ones; they are returned once. Undefined for a wrong code. Audited.
 */
export async function confirmTotp(
  { db, clock, sealer }: Deps,
  webmasterId: number,
  code: string,
  origin: ChangeOrigin,
): Promise<string[] | undefined> {
  const row = await db('webmaster_totp')
    .where('webmaster_id', webmasterId)
    .whereNull('confirmed_at')
    .first<{ secret_sealed: string } | undefined>('secret_sealed');
  if (!row) return undefined;
  const step = matchTotp(Buffer.from(sealer.unseal(row.secret_sealed), 'base64'), code, clock.now());
  if (step === undefined) return undefined;
  return db.transaction(async (trx) => {
    const [done] = await trx('webmaster_totp')
      .where('webmaster_id', webmasterId)
      .whereNull('confirmed_at')
      .update({ confirmed_at: clock.now(), last_step: step })
      .returning('webmaster_id');
    if (!done) return undefined;
    const codes = await issueRecoveryCodes(trx, webmasterId);
    await record(trx, {
      origin,
      webmasterId,
      websiteId: null,
      at: clock.now(),
      action: 'webmaster.second_factor.added',
      before: null,
      after: { totp: SECRET_CHANGED },
    });
    return codes;
  });
}

/**
 * Whether `code` is the webmaster's second factor: a TOTP code of a step after the last one used (a code works once,
 * and of parallel posts of it one wins), or an unused recovery code, spent here.
 */
export async function verifySecondFactor(
  { db, clock, sealer }: Deps,
  webmasterId: number,
  code: string,
): Promise<boolean> {
  const entered = code.trim();
  if (/^\d{6}$/.test(entered)) {
    const row = await db('webmaster_totp')
      .where('webmaster_id', webmasterId)
      .whereNotNull('confirmed_at')
      .first<{ secret_sealed: string } | undefined>('secret_sealed');
    if (!row) return false;
    const step = matchTotp(Buffer.from(sealer.unseal(row.secret_sealed), 'base64'), entered, clock.now());
    if (step === undefined) return false;
    const used = await db('webmaster_totp')
      .where('webmaster_id', webmasterId)
      .where('last_step', '<', step)
      .update({ last_step: step })
      .returning('webmaster_id');
    return used.length > 0;
  }
  const digest = recoveryDigest(entered);
  const rows = await db('webmaster_recovery_codes')
    .where('webmaster_id', webmasterId)
    .whereNull('used_at')
    .select<Array<{ id: number; code_hash: string }>>('id', 'code_hash');
  const match = rows.find((row) => safeEqual(row.code_hash, digest));
  if (!match) return false;
  const spent = await db('webmaster_recovery_codes')
    .where('id', match.id)
    .whereNull('used_at')
    .update({ used_at: clock.now() })
    .returning('id');
  return spent.length > 0;
}

/** Removes every second factor of the account (inside the caller's transaction when given one). */
export async function removeSecondFactors(q: Database | Knex.Transaction, webmasterId: number): Promise<void> {
  await q('webmaster_totp').where('webmaster_id', webmasterId).delete();
  await q('webmaster_passkeys').where('webmaster_id', webmasterId).delete();
  await q('webmaster_recovery_codes').where('webmaster_id', webmasterId).delete();
}

/** The webmaster removes their authenticator app (after entering a code of their second factor); passkeys stay. Audited. */
export async function removeTotp(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  webmasterId: number,
  origin: ChangeOrigin,
): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('webmaster_totp').where('webmaster_id', webmasterId).delete();
    await forgetRecoveryCodesWithoutFactor(trx, webmasterId);
    await record(trx, {
      origin,
      webmasterId,
      websiteId: null,
      at: clock.now(),
      action: 'webmaster.second_factor.removed',
      before: { totp: SECRET_CHANGED },
      after: null,
    });
  });
}
