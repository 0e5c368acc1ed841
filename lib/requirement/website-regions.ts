import type { Database } from '../store/database.js';

/** The regions of the website owning public key `key` (LIVE or TEST) and the key's environment; undefined for an unknown key. */
export async function findRegionsByPublicKey(db: Database, key: string): Promise<{ regions: string[]; environment: 'LIVE' | 'TEST' } | undefined> {
  return db('website_keys')
    .join('websites', 'websites.id', 'website_keys.website_id')
    .where('website_keys.public_key', key)
    .first<{ regions: string[]; environment: 'LIVE' | 'TEST' } | undefined>('websites.regions', 'website_keys.environment');
}
