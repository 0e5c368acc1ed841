import { createDecipheriv, createECDH, createHmac } from 'node:crypto';

/**
 * HPKE (RFC 9180) base mode, receiver side, for the one suite ISO/IEC 18013-7 Annex C uses:
 * DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-128-GCM. Written on node:crypto (ECDH, HMAC, AES-GCM); the tests seal
 * with @hpke/core, another implementation.
 */
const SUITE = { kem: 0x0010, kdf: 0x0001, aead: 0x0001 } as const;
/** AES-128-GCM's key, nonce and tag, and SHA-256's output, in bytes. */
const BYTES = { key: 16, nonce: 12, tag: 16, hash: 32 } as const;

const i2osp = (value: number, length: number): Buffer => {
  const bytes = Buffer.alloc(length);
  bytes.writeUIntBE(value, 0, length);
  return bytes;
};
const KEM_SUITE = Buffer.concat([Buffer.from('KEM'), i2osp(SUITE.kem, 2)]);
const HPKE_SUITE = Buffer.concat([Buffer.from('HPKE'), i2osp(SUITE.kem, 2), i2osp(SUITE.kdf, 2), i2osp(SUITE.aead, 2)]);
const VERSION = Buffer.from('HPKE-v1');

const extract = (salt: Buffer, ikm: Buffer): Buffer =>
  createHmac('sha256', salt.length > 0 ? salt : Buffer.alloc(BYTES.hash))
    .update(ikm)
    .digest();

function expand(prk: Buffer, info: Buffer, length: number): Buffer {
  const blocks: Buffer[] = [];
  let previous = Buffer.alloc(0);
  for (let counter = 1; blocks.length * BYTES.hash < length; counter++) {
    previous = createHmac('sha256', prk)
      .update(Buffer.concat([previous, info, i2osp(counter, 1)]))
      .digest();
    blocks.push(previous);
  }
  return Buffer.concat(blocks).subarray(0, length);
}

const labeledExtract = (suite: Buffer, salt: Buffer, label: string, ikm: Buffer): Buffer =>
  extract(salt, Buffer.concat([VERSION, suite, Buffer.from(label), ikm]));
const labeledExpand = (suite: Buffer, prk: Buffer, label: string, info: Buffer, length: number): Buffer =>
  expand(prk, Buffer.concat([i2osp(length, 2), VERSION, suite, Buffer.from(label), info]), length);

/** A recipient key pair: the private scalar and the uncompressed public point, both raw. */
export interface RecipientKey {
  privateKey: Buffer;
  publicKey: Buffer;
}

export function newRecipientKey(): RecipientKey {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { privateKey: ecdh.getPrivateKey(), publicKey: ecdh.getPublicKey() };
}

/**
 * Opens a single-shot message (sequence number 0): `enc` is the sender's ephemeral public key, `info` binds the
 * context, the additional data is empty. Throws on a key not on the curve or a ciphertext that does not authenticate.
 */
export function openBase(recipient: RecipientKey, enc: Uint8Array, info: Uint8Array, ciphertext: Uint8Array): Buffer {
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(recipient.privateKey);
  const dh = ecdh.computeSecret(Buffer.from(enc));
  const kemContext = Buffer.concat([Buffer.from(enc), recipient.publicKey]);
  const eaePrk = labeledExtract(KEM_SUITE, Buffer.alloc(0), 'eae_prk', dh);
  const sharedSecret = labeledExpand(KEM_SUITE, eaePrk, 'shared_secret', kemContext, BYTES.hash);

  const pskIdHash = labeledExtract(HPKE_SUITE, Buffer.alloc(0), 'psk_id_hash', Buffer.alloc(0));
  const infoHash = labeledExtract(HPKE_SUITE, Buffer.alloc(0), 'info_hash', Buffer.from(info));
  const context = Buffer.concat([i2osp(0, 1), pskIdHash, infoHash]);
  const secret = labeledExtract(HPKE_SUITE, sharedSecret, 'secret', Buffer.alloc(0));
  const key = labeledExpand(HPKE_SUITE, secret, 'key', context, BYTES.key);
  const nonce = labeledExpand(HPKE_SUITE, secret, 'base_nonce', context, BYTES.nonce);

  const sealed = Buffer.from(ciphertext);
  if (sealed.length < BYTES.tag) throw new Error('ciphertext shorter than its tag');
  const decipher = createDecipheriv('aes-128-gcm', key, nonce);
  decipher.setAuthTag(sealed.subarray(sealed.length - BYTES.tag));
  return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - BYTES.tag)), decipher.final()]);
}
