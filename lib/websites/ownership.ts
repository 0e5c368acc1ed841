import type { Knex } from 'knex';
import { HttpError } from '../http/errors.js';

/** A query builder: the database, or the transaction a write runs in. */
export type Queryable = Knex | Knex.Transaction;

/** Website ids outside the safe positive integers cannot exist; they answer like a missing website. */
export function checkWebsiteId(websiteId: number): void {
  if (!Number.isSafeInteger(websiteId) || websiteId < 1) throw websiteNotFound();
}

const websiteNotFound = (): HttpError => new HttpError(404, 'Website not found.');

/**
 * Every read and write filters by owner in its own query; only when that found nothing does this tell the two
 * cases apart: another webmaster's website is 401 (spec 5 "lacks permission"), a missing one 404 (ARCHITECTURE §6.8).
 */
export async function websiteAccessError(q: Queryable, websiteId: number): Promise<HttpError> {
  const exists = await q('websites').where('id', websiteId).first('id');
  return exists ? new HttpError(401, 'You do not have permission to access this website.') : websiteNotFound();
}

/** Passes when the website exists and belongs to the webmaster; throws the access error otherwise. */
export async function requireOwnedWebsite(q: Queryable, webmasterId: number, websiteId: number): Promise<void> {
  checkWebsiteId(websiteId);
  const row = await q('websites').where({ id: websiteId, webmaster_id: webmasterId }).first('id');
  if (!row) throw await websiteAccessError(q, websiteId);
}
