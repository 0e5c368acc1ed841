import type { Database } from '../store/database.js';
import { validator } from '../websites/validation.js';
import { checkWebsiteId, websiteAccess } from '../websites/ownership.js';
import { AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX, auditQuerySchema } from './schemas.js';
import { wholeChain, websiteEntries, type AuditEntry } from './trail.js';

/** What the audit trail's views take (entries are appended by the change's listeners, lib/app/changes.ts). */
export interface AuditServices {
  db: Database;
}

const validateQuery = validator<{ limit?: string; before?: string }>(auditQuerySchema, 'query');

/** A page of a website's audit trail for its owner, newest first; `next` continues with older entries. */
export async function websiteActivity(
  runtime: AuditServices,
  webmasterId: number,
  websiteId: number,
  query: unknown,
): Promise<{ entries: AuditEntry[]; next: number | null }> {
  const { limit, before } = validateQuery(query);
  checkWebsiteId(websiteId);
  await websiteAccess(runtime.db, webmasterId, websiteId);
  const size = Math.min(Number(limit ?? AUDIT_PAGE_DEFAULT), AUDIT_PAGE_MAX);
  // One more than asked tells whether an older page exists.
  const entries = await websiteEntries(runtime.db, websiteId, {
    limit: size + 1,
    ...(before ? { before: Number(before) } : {}),
  });
  const page = entries.slice(0, size);
  return { entries: page, next: entries.length > size ? page.at(-1)!.id : null };
}

/** A website's whole trail as JSON lines, oldest first: each line one entry, the file checkable on its own (docs/audit.md). */
export async function websiteActivityExport(
  runtime: AuditServices,
  webmasterId: number,
  websiteId: number,
): Promise<string> {
  checkWebsiteId(websiteId);
  await websiteAccess(runtime.db, webmasterId, websiteId);
  return (await wholeChain(runtime.db, { website: websiteId })).map((entry) => `${JSON.stringify(entry)}\n`).join('');
}
