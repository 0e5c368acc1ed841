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

/**
 * Every change of a website locks its row first, then the rows it changes (its keys, clients, webhooks, the audit
 * chain's head, the webhooks' messages): one lock order, so two changes of one website wait for each other instead of
 * deadlocking (docs/decisions/webhooks.md "One lock order for a website's changes"). FOR NO KEY UPDATE does not stop
 * a visitor's verification from being recorded for the website meanwhile (its foreign key takes KEY SHARE). Another
 * webmaster's website is not locked; the caller's own query refuses it.
 */
export async function lockWebsiteForChange(
  trx: Knex.Transaction,
  webmasterId: number,
  websiteId: number,
): Promise<void> {
  await trx('websites').where({ id: websiteId, webmaster_id: webmasterId }).forNoKeyUpdate().first('id');
}
