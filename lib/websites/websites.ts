import { websiteCreateSchema } from './schemas/website-create.js';
import { websiteUpdateSchema } from './schemas/website-update.js';
import { validator } from './validation.js';
import type { WebsiteServices } from './services.js';
import { newPublicKey } from './credentials.js';
import {
  ENVIRONMENTS,
  type Website,
  type WebsiteCreateInput,
  type WebsiteKey,
  type WebsiteUpdateInput,
} from './models.js';
import { checkWebsiteId, deniedAccess, type Queryable } from './ownership.js';
import { retriedTransaction } from '../store/retry.js';
import type { ChangeOrigin } from '../changes.js';

type WebsiteRow = Omit<Website, 'keys'>;

interface KeyRow {
  website_id: number;
  environment: WebsiteKey['environment'];
  public_key: string;
}

const WEBSITE_COLUMNS = ['id', 'name', 'domain', 'language', 'regions', 'challenges'];

const validateCreate = validator<WebsiteCreateInput>(websiteCreateSchema, 'body');
const validateUpdate = validator<WebsiteUpdateInput>(websiteUpdateSchema, 'body');

/** Websites with their keys (LIVE first), in the order of `rows`. */
async function withKeys(q: Queryable, rows: WebsiteRow[]): Promise<Website[]> {
  if (rows.length === 0) return [];
  const keys = await q('website_keys')
    .whereIn(
      'website_id',
      rows.map((row) => row.id),
    )
    .orderBy('environment')
    .select<KeyRow[]>('website_id', 'environment', 'public_key');
  return rows.map((row) => ({
    ...row,
    keys: keys
      .filter((key) => key.website_id === row.id)
      .map((key) => ({ environment: key.environment, publicKey: key.public_key })),
  }));
}

/** List websites: the webmaster's websites, oldest first. */
export async function listWebsites(runtime: WebsiteServices, webmasterId: number): Promise<Website[]> {
  const rows = await runtime
    .db('websites')
    .where('webmaster_id', webmasterId)
    .orderBy('id')
    .select<WebsiteRow[]>(WEBSITE_COLUMNS);
  return withKeys(runtime.db, rows);
}

/** Get a website: another webmaster's website is 401, a missing one 404. */
export async function getWebsite(runtime: WebsiteServices, webmasterId: number, websiteId: number): Promise<Website> {
  checkWebsiteId(websiteId);
  const row = await runtime
    .db('websites')
    .where({ id: websiteId, webmaster_id: webmasterId })
    .first<WebsiteRow | undefined>(WEBSITE_COLUMNS);
  if (!row) return deniedAccess(runtime.db, webmasterId, websiteId);
  const [website] = await withKeys(runtime.db, [row]);
  return website!;
}

/** Create a website: with its LIVE and TEST keys, in one transaction; omitted fields take their defaults. */
export async function createWebsite(
  runtime: WebsiteServices,
  webmasterId: number,
  input: WebsiteCreateInput,
  origin: ChangeOrigin,
): Promise<Website> {
  const body = validateCreate(input);
  const now = runtime.clock.now();
  return runtime.db.transaction(async (trx) => {
    const [row] = await trx('websites')
      .insert({
        webmaster_id: webmasterId,
        name: body.name.trim(),
        domain: body.domain,
        language: body.language ?? 'auto',
        challenges: JSON.stringify(body.challenges ?? runtime.challenges.freeChallenges()),
        regions: JSON.stringify(body.regions ?? []),
        created_at: now,
        updated_at: now,
      })
      .returning<WebsiteRow[]>(WEBSITE_COLUMNS);
    await trx('website_keys').insert(
      ENVIRONMENTS.map((environment) => ({
        website_id: row!.id,
        environment,
        public_key: newPublicKey(environment),
        created_at: now,
      })),
    );
    const [website] = await withKeys(trx, [row!]);
    await runtime.recordChange(trx, {
      origin,
      webmasterId,
      websiteId: row!.id,
      at: now,
      action: 'website.created',
      before: null,
      after: auditedFields(website!),
    });
    return website!;
  });
}

/** What the audit trail keeps of a website: its fields and public keys (no secret among them). */
const auditedFields = ({ id: _id, ...fields }: Website): Record<string, unknown> => fields;

/** Update a website: changes the fields sent (never the domain); an empty update is 400. */
export async function updateWebsite(
  runtime: WebsiteServices,
  webmasterId: number,
  websiteId: number,
  input: WebsiteUpdateInput,
  origin: ChangeOrigin,
): Promise<Website> {
  const body = validateUpdate(input);
  checkWebsiteId(websiteId);
  const now = runtime.clock.now();
  return retriedTransaction(runtime.db, async (trx) => {
    // The website's row first: every change's lock order (FOR NO KEY UPDATE lets verifications be recorded meanwhile).
    const previous = await trx('websites')
      .where({ id: websiteId, webmaster_id: webmasterId })
      .forNoKeyUpdate()
      .first<WebsiteRow | undefined>(WEBSITE_COLUMNS);
    if (!previous) return deniedAccess(trx, webmasterId, websiteId);
    const [row] = await trx('websites')
      .where({ id: websiteId, webmaster_id: webmasterId })
      .update({
        ...(body.name !== undefined ? { name: body.name.trim() } : {}),
        ...(body.language !== undefined ? { language: body.language } : {}),
        ...(body.challenges !== undefined ? { challenges: JSON.stringify(body.challenges) } : {}),
        ...(body.regions !== undefined ? { regions: JSON.stringify(body.regions) } : {}),
        updated_at: now,
      })
      .returning<WebsiteRow[]>(WEBSITE_COLUMNS);
    if (!row) return deniedAccess(trx, webmasterId, websiteId);
    const [website] = await withKeys(trx, [row]);
    const [before] = await withKeys(trx, [previous]);
    await runtime.recordChange(trx, {
      origin,
      webmasterId,
      websiteId,
      at: now,
      action: 'website.updated',
      before: auditedFields(before!),
      after: auditedFields(website!),
    });
    return website!;
  });
}

/**
 * Delete a website (docs/decisions/team.md "Deleting a website"): its keys, OAuth2 clients, webhooks, statistics and
 * verifications go with it in one transaction; the delete notifies the client change feed, so every instance stops
 * resolving its clients at once. Its audit chain stays, ending with this deletion.
 */
export async function deleteWebsite(
  runtime: WebsiteServices,
  webmasterId: number,
  websiteId: number,
  origin: ChangeOrigin,
): Promise<void> {
  checkWebsiteId(websiteId);
  const now = runtime.clock.now();
  await retriedTransaction(runtime.db, async (trx) => {
    const [row] = await trx('websites')
      .where({ id: websiteId, webmaster_id: webmasterId })
      .delete()
      .returning<WebsiteRow[]>(WEBSITE_COLUMNS);
    if (!row) return deniedAccess(trx, webmasterId, websiteId);
    await runtime.recordChange(trx, {
      origin,
      webmasterId,
      websiteId,
      at: now,
      action: 'website.deleted',
      before: { name: row.name, domain: row.domain },
      after: null,
    });
  });
}
