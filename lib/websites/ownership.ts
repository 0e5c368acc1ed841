import type { Knex } from 'knex';
import { Refusal } from '../refusal.js';

/** A query builder: the database, or the transaction a write runs in. */
export type Queryable = Knex | Knex.Transaction;

const websiteNotFound = (): Refusal => new Refusal('not_found', 'Website not found.');

/** Website ids outside the safe positive integers cannot exist; they answer like a missing website. */
export function checkWebsiteId(websiteId: number): void {
  if (!Number.isSafeInteger(websiteId) || websiteId < 1) throw websiteNotFound();
}

/**
 * One query by id (after checkWebsiteId): a missing website is 404, another webmaster's 401 ("lacks
 * permission"); the webmaster's own passes.
 */
export async function websiteAccess(q: Queryable, webmasterId: number, websiteId: number): Promise<void> {
  const row = await q('websites').where('id', websiteId).first<{ webmaster_id: number } | undefined>('webmaster_id');
  if (!row) throw websiteNotFound();
  if (row.webmaster_id !== webmasterId)
    throw new Refusal('not_permitted', 'You do not have permission to access this website.');
}

/**
 * Every read and write filters by owner in its own query; only when that found nothing does this tell why. The
 * owner's website always matches such a query, so one that passes websiteAccess can only have vanished meanwhile.
 */
export async function deniedAccess(q: Queryable, webmasterId: number, websiteId: number): Promise<never> {
  await websiteAccess(q, webmasterId, websiteId);
  throw websiteNotFound();
}
