import { createHmac, randomBytes } from 'node:crypto';
import { safeEqual } from './hashing.js';

/**
 * TOTP (RFC 6238) over HOTP (RFC 4226), with node:crypto only: what every authenticator app computes from a shared
 * secret and the time. Our parameters are the ones every app understands: SHA-1, 6 digits, 30-second steps; the
 * algorithm and digits stay parameters so the RFC's own test vectors (SHA-1/256/512, 8 digits) check the code.
 */
export type TotpAlgorithm = 'sha1' | 'sha256' | 'sha512';

export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of now: one, for a clock a little off and a code typed as it changed (RFC 6238 §5.2). */
const WINDOW = 1;

/** HOTP (RFC 4226 §5.3): the HMAC of the 8-byte counter, dynamically truncated to `digits` decimal digits. */
export function hotp(key: Buffer, counter: number, digits = TOTP_DIGITS, algorithm: TotpAlgorithm = 'sha1'): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The time step of a moment (RFC 6238 §4.2, T0 = 0). */
export const totpStep = (at: Date): number => Math.floor(at.getTime() / 1000 / TOTP_STEP_SECONDS);

/** The code for a moment. */
export const totpAt = (key: Buffer, at: Date, digits = TOTP_DIGITS, algorithm: TotpAlgorithm = 'sha1'): string =>
  hotp(key, totpStep(at), digits, algorithm);

/**
 * The step whose code `code` is, within one step of `at`, or undefined. Every candidate is compared in constant time;
 * the caller refuses a step at or before the last one used, so a code observed once cannot be replayed.
 */
export function matchTotp(key: Buffer, code: string, at: Date): number | undefined {
  const now = totpStep(at);
  let matched: number | undefined;
  for (let step = now - WINDOW; step <= now + WINDOW; step++) {
    if (safeEqual(hotp(key, step), code) && matched === undefined) matched = step;
  }
  return matched;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding: how authenticator apps take a secret (the otpauth URI, typed by hand). */
export function base32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let text = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      text += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) text += BASE32[(value << (5 - bits)) & 31];
  return text;
}

/** A new secret: 20 random bytes, SHA-1's block-worthy length (RFC 4226 §4 asks 128 bits at least, recommends 160). */
export const newTotpSecret = (): Buffer => randomBytes(20);

/** The otpauth:// URI apps scan (Key Uri Format): the issuer and account label, the secret, the defaults spelled out. */
export const otpauthUri = (issuer: string, account: string, secret: Buffer): string =>
  `otpauth://totp/${encodeURIComponent(issuer)}:${encodeURIComponent(account)}?secret=${base32(secret)}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=${TOTP_DIGITS}&period=${TOTP_STEP_SECONDS}`;
