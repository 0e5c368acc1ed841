import type { Database } from '../store/database.js';
import type { Environment } from '../verification/challenge.js';

/** The website a public key belongs to, as the checker needs it. */
export interface KeyWebsite {
  publicKey: string;
  environment: Environment;
  website: { id: number; name: string; domain: string; domainVerified: boolean; language: string; challenges: string[]; regions: string[] };
}

/** Public keys are URL-safe tokens (`pk_live_…`, `pk_test_…`); anything else cannot be one, so it is not looked up. */
export const PUBLIC_KEY_SHAPE = /^pk_(?:live|test)_[A-Za-z0-9_-]{1,200}$/;

interface Row {
  public_key: string;
  environment: Environment;
  id: number;
  name: string;
  domain: string;
  language: string;
  challenges: string[];
  regions: string[];
  domain_verified_at: Date | null;
}

/**
 * The website of a current public key, or undefined: one indexed read on every use, so a regenerated key stops
 * working at once (spec 4.2 #5 replaces the row's key in place).
 */
export async function findKeyWebsite(db: Database, publicKey: string): Promise<KeyWebsite | undefined> {
  if (!PUBLIC_KEY_SHAPE.test(publicKey)) return undefined;
  const row = await db('website_keys as key')
    .join('websites as website', 'website.id', 'key.website_id')
    .where('key.public_key', publicKey)
    .first<Row | undefined>(
      'key.public_key', 'key.environment', 'website.id', 'website.name', 'website.domain', 'website.language', 'website.challenges',
      'website.regions', 'website.domain_verified_at',
    );
  if (!row) return undefined;
  const { public_key, environment, domain_verified_at, ...website } = row;
  return { publicKey: public_key, environment, website: { ...website, domainVerified: domain_verified_at !== null } };
}
