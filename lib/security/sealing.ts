import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from 'node:crypto';

/** AES-256-GCM sealing for secrets that must be shown again (OAuth2 client secrets). Format: v1.iv.tag.ciphertext (base64url). */
export interface Sealer {
  seal(plaintext: string): string;
  unseal(sealed: string): string;
}

export function createSealer(rawKey: Buffer): Sealer {
  if (rawKey.length !== 32) throw new Error('the sealing key must be 32 bytes');
  // Imported once: a Buffer key is imported again by every cipher made with it (several times the cost of an unseal,
  // docs/performance.md "Measurements behind code choices"), and a client secret is unsealed at every authorization
  // request and token exchange.
  const key = createSecretKey(rawKey);
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [
        'v1',
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        body.toString('base64url'),
      ].join('.');
    },
    unseal(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unknown sealed secret format');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
