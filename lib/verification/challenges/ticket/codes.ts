import { randomBytes } from 'node:crypto';
import { addSeconds, type Clock } from '../../../clock.js';
import { randomToken, sha256 } from '../../../security/hashing.js';
import type { Database } from '../../../store/database.js';
import type { AssuranceLevel } from '../../challenge.js';

// Crockford's base32: no I, L, O or U, so a code read off paper is hard to mistype; O, I and L typed anyway map back.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const GROUPS = 5;
const GROUP_LENGTH = 4;
/** 20 symbols of 5 bits: 100 bits, far beyond guessing even without the rate limit. */
const CODE_LENGTH = GROUPS * GROUP_LENGTH;

/** A fresh code, e.g. `7KQ2-M9XD-3HTW-ZP5N-C8RV`. */
export function generateTicketCode(): string {
  const bytes = randomBytes(CODE_LENGTH);
  // 256 is a multiple of 32, so `byte % 32` is uniform.
  const symbols = [...bytes].map((byte) => ALPHABET[byte % ALPHABET.length]).join('');
  return symbols.match(new RegExp(`.{${GROUP_LENGTH}}`, 'g'))!.join('-');
}

/** The canonical form of what a visitor typed (case, spaces, any dash and look-alikes ignored), or undefined when it cannot be a code. */
export function normalizeTicketCode(typed: string): string | undefined {
  const canonical = typed
    .toUpperCase()
    .replace(/[\s\p{Pd}]+/gu, '')
    .replace(/O/g, '0')
    .replace(/[IL]/g, '1');
  return canonical.length === CODE_LENGTH && canonical.split('').every((symbol) => ALPHABET.includes(symbol))
    ? canonical
    : undefined;
}

const hashCode = (canonical: string): string => sha256(canonical);

export interface TicketBatch {
  batch: string;
  level: AssuranceLevel;
  count: number;
  expiresAt: Date | null;
  /** shown once; only their SHA-256 hashes are stored */
  codes: string[];
}

export const MAX_BATCH_SIZE = 10_000;

/** Issues `count` single-use codes in one batch, stored as hashes only. */
export async function issueTickets(
  db: Database,
  clock: Clock,
  input: { count: number; level: AssuranceLevel; expiresInDays?: number },
): Promise<TicketBatch> {
  if (!Number.isInteger(input.count) || input.count < 1 || input.count > MAX_BATCH_SIZE) {
    throw new RangeError(`count must be an integer from 1 to ${MAX_BATCH_SIZE}`);
  }
  const batch = randomToken(9, 'tkb_');
  const now = clock.now();
  const expiresAt = input.expiresInDays === undefined ? null : addSeconds(now, input.expiresInDays * 86400);
  const codes = Array.from({ length: input.count }, generateTicketCode);
  const rows = codes.map((code) => ({
    batch_id: batch,
    code_hash: hashCode(normalizeTicketCode(code)!),
    assurance_level: input.level,
    created_at: now,
    expires_at: expiresAt,
  }));
  await db.transaction(async (trx) => {
    for (let start = 0; start < rows.length; start += 1000)
      await trx('tickets').insert(rows.slice(start, start + 1000));
  });
  return { batch, level: input.level, count: codes.length, expiresAt, codes };
}

/**
 * Redeems a code once: a conditional update, so of any number of concurrent attempts exactly one wins.
 * Returns the ticket's assurance level, or undefined for a code that is unknown, used or expired (indistinguishable).
 */
export async function redeemTicket(
  db: Database,
  clock: Clock,
  canonicalCode: string,
): Promise<AssuranceLevel | undefined> {
  const now = clock.now();
  const [row] = await db('tickets')
    .where('code_hash', hashCode(canonicalCode))
    .whereNull('redeemed_at')
    .where((query) => {
      query.whereNull('expires_at').orWhere('expires_at', '>', now);
    })
    .update({ redeemed_at: now })
    .returning(['assurance_level']);
  return (row as { assurance_level: AssuranceLevel } | undefined)?.assurance_level;
}
