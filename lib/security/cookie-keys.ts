import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { safeEqual } from './hashing.js';

const URL_SAFE: Record<string, string> = { '/': '_', '+': '-', '=': '' };

/**
 * The server's cookie keys (COOKIE_KEYS, newest first) as Koa's signed cookies, oidc-provider's and the form tokens
 * use them. Koa and oidc-provider take it where they take keygrip, and it signs exactly as keygrip does (HMAC-SHA1,
 * base64 made URL-safe), so a cookie signed before still verifies. What differs is the cost on Node 24: each key is
 * imported once as a KeyObject, and a signature is compared with timingSafeEqual. keygrip compares through tsscmp,
 * which draws a random Buffer key for two more HMACs per comparison, and on Node 24 an HMAC under a Buffer key costs
 * several times what it costs under a KeyObject, a visible share of a flow through the pages (docs/performance.md
 * "Measurements behind code choices").
 */
export class CookieKeys {
  /** newest first: the first signs, any verifies (rotation) */
  readonly keys: readonly KeyObject[];

  constructor(secrets: readonly string[]) {
    if (secrets.length === 0) throw new Error('at least one cookie key is needed');
    this.keys = secrets.map((secret) => createSecretKey(Buffer.from(secret, 'utf8')));
  }

  sign(data: string): string {
    return signWith(this.keys[0]!, data);
  }

  verify(data: string, digest: string): boolean {
    return this.index(data, digest) > -1;
  }

  /** Which key signed `data` as `digest`, or -1. */
  index(data: string, digest: string): number {
    return this.keys.findIndex((key) => safeEqual(digest, signWith(key, data)));
  }
}

const signWith = (key: KeyObject, data: string): string =>
  createHmac('sha1', key)
    .update(data)
    .digest('base64')
    .replace(/[/+=]/g, (character) => URL_SAFE[character]!);
