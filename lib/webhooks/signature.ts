import { createHmac, randomBytes } from 'node:crypto';

/** A new signing secret as Standard Webhooks writes it: `whsec_` and 32 random bytes in base64. */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** One signature of Standard Webhooks: `v1,` and the base64 HMAC-SHA256, keyed with the secret's decoded bytes, of `id.timestamp.body`. */
function signatureOf(secret: string, messageId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * The `webhook-signature` header of Standard Webhooks: one signature per secret, separated by spaces (the current
 * secret first; during a rotation's overlap the previous one too), so a receiver holding either secret verifies it.
 */
export const signaturesOf = (secrets: readonly string[], messageId: string, timestamp: number, body: string): string =>
  secrets.map((secret) => signatureOf(secret, messageId, timestamp, body)).join(' ');

/** Whether a rotation's replaced secret still signs at `now`: until its overlap's end, excluded. */
export const overlapLasts = (expiresAt: Date | null, now: Date): boolean => expiresAt !== null && now < expiresAt;
