import { randomInt } from 'node:crypto';
import { addSeconds, type Clock } from '../clock.js';
import { safeEqual, sha256 } from '../security/hashing.js';
import type { Database } from '../store/database.js';

/** A code works for ten minutes: long enough to open a mail, short enough to be useless when a mailbox leaks later. */
export const SIGN_IN_CODE_SECONDS = 10 * 60;
/** Wrong entries a code survives; the next one spends it, so a code gives a guesser five chances in 10^8. */
export const SIGN_IN_CODE_ATTEMPTS = 5;
const DIGITS = 8;

/**
 * The digest kept of a code: salted with the secret of the browser it belongs to, which only that browser's cookie
 * holds, so a copy of the table does not give the codes away to an eight-digit search.
 */
const codeDigest = (browser: string, code: string): string => sha256(`sign-in-code:${browser}:${code}`);

/** A fresh code for the webmaster, usable only by the browser holding `browser` (a random secret in its cookie). */
export async function issueSignInCode(
  db: Database,
  clock: Clock,
  webmasterId: number,
  browser: string,
): Promise<string> {
  const code = String(randomInt(0, 10 ** DIGITS)).padStart(DIGITS, '0');
  const now = clock.now();
  // Expired and spent codes are swept here, so the table holds only the live ones.
  await db('sign_in_codes').where('expires_at', '<=', now).orWhereNotNull('used_at').delete();
  // A new request from the same browser replaces its earlier code: one live code per browser.
  await db('sign_in_codes').where('browser_hash', sha256(browser)).delete();
  await db('sign_in_codes').insert({
    webmaster_id: webmasterId,
    browser_hash: sha256(browser),
    code_hash: codeDigest(browser, code),
    expires_at: addSeconds(now, SIGN_IN_CODE_SECONDS),
  });
  return code;
}

/**
 * Spends the browser's live code when `code` is it, and answers its webmaster's id and email; `used` when `code` is
 * this browser's code and was spent already (a repeat of the post that spent it: it gets nothing); undefined
 * otherwise. Every entry counts an attempt before the comparison, in the statement that selects the code, so parallel
 * guesses cannot share one attempt; the code is marked used by a statement only one parallel post can win.
 */
export async function redeemSignInCode(
  db: Database,
  clock: Clock,
  browser: string,
  code: string,
): Promise<{ id: number; email: string } | 'used' | undefined> {
  const now = clock.now();
  const [row] = await db('sign_in_codes')
    .where('browser_hash', sha256(browser))
    .whereNull('used_at')
    .where('expires_at', '>', now)
    .where('attempts', '<', SIGN_IN_CODE_ATTEMPTS)
    .update({ attempts: db.raw('attempts + 1') })
    .returning<Array<{ id: string | number; code_hash: string; webmaster_id: string | number }>>([
      'id',
      'code_hash',
      'webmaster_id',
    ]);
  if (!row) return (await spentAlready(db, browser, code)) ? 'used' : undefined;
  if (!safeEqual(row.code_hash, codeDigest(browser, code))) return undefined;
  const spent = await db('sign_in_codes').where('id', row.id).whereNull('used_at').update({ used_at: now });
  if (spent !== 1) return 'used';
  const webmaster = await db('webmasters').where('id', row.webmaster_id).first<{ email: string } | undefined>('email');
  return webmaster ? { id: Number(row.webmaster_id), email: webmaster.email } : undefined;
}

/** Whether `code` is this browser's code and was spent already. */
async function spentAlready(db: Database, browser: string, code: string): Promise<boolean> {
  const used = await db('sign_in_codes')
    .where('browser_hash', sha256(browser))
    .whereNotNull('used_at')
    .first<{ code_hash: string } | undefined>('code_hash');
  return used !== undefined && safeEqual(used.code_hash, codeDigest(browser, code));
}
