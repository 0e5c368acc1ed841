import type { Runtime } from '../runtime.js';
import { newPublicKey } from './credentials.js';
import type { Environment, WebsiteKey } from './models.js';
import { checkWebsiteId, deniedAccess, type Queryable } from './ownership.js';

/** The owner's websites with this id: the tenancy filter of every key query. */
const ownedWebsiteIds = (q: Queryable, webmasterId: number, websiteId: number) =>
  q('websites').select('id').where({ id: websiteId, webmaster_id: webmasterId });

/** Spec 4.2 #6. */
export async function getWebsiteKey(runtime: Runtime, webmasterId: number, websiteId: number, environment: Environment): Promise<WebsiteKey> {
  checkWebsiteId(websiteId);
  const row = await runtime.db('website_keys')
    .whereIn('website_id', ownedWebsiteIds(runtime.db, webmasterId, websiteId))
    .where('environment', environment)
    .first<{ public_key: string } | undefined>('public_key');
  if (!row) return deniedAccess(runtime.db, webmasterId, websiteId);
  return { environment, publicKey: row.public_key };
}

/** Spec 4.2 #5: a new public key replaces the old one at once (ARCHITECTURE §6.8). */
export async function regenerateWebsiteKey(runtime: Runtime, webmasterId: number, websiteId: number, environment: Environment): Promise<WebsiteKey> {
  checkWebsiteId(websiteId);
  return runtime.db.transaction(async (trx) => {
    const [row] = await trx('website_keys')
      .whereIn('website_id', ownedWebsiteIds(trx, webmasterId, websiteId))
      .where('environment', environment)
      .update({ public_key: newPublicKey(environment), created_at: runtime.clock.now() })
      .returning<Array<{ public_key: string }>>('public_key');
    if (!row) return deniedAccess(trx, webmasterId, websiteId);
    return { environment, publicKey: row.public_key };
  });
}
