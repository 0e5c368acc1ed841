import { randomBytes, randomInt } from 'node:crypto';
import { safeEqual, sha256 } from '../../../security/hashing.js';

export const CODE_TTL_SECONDS = 600;
export const CODE_ATTEMPTS = 5;

/** A one-time code as the challenge keeps it: salted hash only, expiry, attempts left. */
export interface StoredCode {
  salt: string;
  hash: string;
  /** epoch milliseconds */
  expiresAt: number;
  attemptsLeft: number;
}

/** Six random digits, leading zeros kept. */
export const newCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');

export function storeCode(code: string, now: Date): StoredCode {
  const salt = randomBytes(16).toString('base64url');
  return {
    salt,
    hash: sha256(`${salt}:${code}`),
    expiresAt: now.getTime() + CODE_TTL_SECONDS * 1000,
    attemptsLeft: CODE_ATTEMPTS,
  };
}

export const codeMatches = (stored: StoredCode, code: string): boolean =>
  safeEqual(sha256(`${stored.salt}:${code}`), stored.hash);
