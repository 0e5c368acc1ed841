import type { PolicyRule } from '../policy/rule.js';
import type { WebsiteServices } from './services.js';
import type { Database } from '../store/database.js';
import { newPublicKey } from './credentials.js';
import type { Environment, WebsiteKey } from './models.js';
import { checkWebsiteId, lockWebsiteForChange, deniedAccess, type Queryable } from './ownership.js';
import { retriedTransaction } from '../store/retry.js';
import type { ChangeOrigin } from '../changes.js';

/** The owner's websites with this id: the tenancy filter of every key query. */
const ownedWebsiteIds = (q: Queryable, webmasterId: number, websiteId: number) =>
  q('websites').select('id').where({ id: websiteId, webmaster_id: webmasterId });

/** Get a website key: the current public key of one environment. */
export async function getWebsiteKey(
  runtime: WebsiteServices,
  webmasterId: number,
  websiteId: number,
  environment: Environment,
): Promise<WebsiteKey> {
  checkWebsiteId(websiteId);
  const row = await runtime
    .db('website_keys')
    .whereIn('website_id', ownedWebsiteIds(runtime.db, webmasterId, websiteId))
    .where('environment', environment)
    .first<{ public_key: string } | undefined>('public_key');
  if (!row) return deniedAccess(runtime.db, webmasterId, websiteId);
  return { environment, publicKey: row.public_key };
}

/** Regenerate a website key: a new public key replaces the old one at once. */
export async function regenerateWebsiteKey(
  runtime: WebsiteServices,
  webmasterId: number,
  websiteId: number,
  environment: Environment,
  origin: ChangeOrigin,
): Promise<WebsiteKey> {
  checkWebsiteId(websiteId);
  const now = runtime.clock.now();
  return retriedTransaction(runtime.db, async (trx) => {
    await lockWebsiteForChange(trx, webmasterId, websiteId);
    const previous = await trx('website_keys')
      .whereIn('website_id', ownedWebsiteIds(trx, webmasterId, websiteId))
      .where('environment', environment)
      .forUpdate()
      .first<{ public_key: string } | undefined>('public_key');
    if (!previous) return deniedAccess(trx, webmasterId, websiteId);
    const [row] = await trx('website_keys')
      .whereIn('website_id', ownedWebsiteIds(trx, webmasterId, websiteId))
      .where('environment', environment)
      .update({ public_key: newPublicKey(environment), created_at: now })
      .returning<Array<{ public_key: string }>>('public_key');
    if (!row) return deniedAccess(trx, webmasterId, websiteId);
    await runtime.recordChange(trx, {
      origin,
      webmasterId,
      websiteId,
      at: now,
      action: 'key.regenerated',
      before: { environment, publicKey: previous.public_key },
      after: { environment, publicKey: row.public_key },
    });
    return { environment, publicKey: row.public_key };
  });
}

/** The website a public key belongs to, as the checker needs it. */
export interface KeyWebsite {
  publicKey: string;
  environment: Environment;
  website: {
    id: number;
    name: string;
    domain: string;
    domainVerified: boolean;
    language: string;
    challenges: string[];
    regions: string[];
    policyRules: PolicyRule[];
  };
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
  policy_rules: PolicyRule[];
  domain_verified_at: Date | null;
}

/**
 * The website of a current public key, or undefined: one indexed read on every use, so a regenerated key stops
 * working at once (a regeneration replaces the row's key in place).
 */
export async function findKeyWebsite(db: Database, publicKey: string): Promise<KeyWebsite | undefined> {
  if (!PUBLIC_KEY_SHAPE.test(publicKey)) return undefined;
  const row = await db('website_keys as key')
    .join('websites as website', 'website.id', 'key.website_id')
    .where('key.public_key', publicKey)
    .first<Row | undefined>(
      'key.public_key',
      'key.environment',
      'website.id',
      'website.name',
      'website.domain',
      'website.language',
      'website.challenges',
      'website.regions',
      'website.policy_rules',
      'website.domain_verified_at',
    );
  if (!row) return undefined;
  const { public_key, environment, domain_verified_at, policy_rules, ...website } = row;
  return {
    publicKey: public_key,
    environment,
    website: { ...website, policyRules: policy_rules, domainVerified: domain_verified_at !== null },
  };
}
