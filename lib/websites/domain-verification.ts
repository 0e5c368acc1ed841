import { record, type ChangeOrigin } from '../audit/trail.js';
import { randomBytes } from 'node:crypto';
import type { Runtime } from '../runtime.js';
import { checkWebsiteId, deniedAccess } from './ownership.js';

/** Where the token is published: a TXT record on this name below the domain, or this file on the domain's https origin. */
export const DNS_LABEL = '_age-provider';
export const WELL_KNOWN_PATH = '/.well-known/age-provider.txt';
const TOKEN_PREFIX = 'age-provider-verification=';

/** What the platform page and the External API show about a website's domain. */
export interface DomainVerification {
  domain: string;
  verified: boolean;
  verifiedAt: string | null;
  checkedAt: string | null;
  /** the exact text to publish, in either place */
  token: string;
  dns: { name: string; type: 'TXT'; value: string };
  file: { url: string; content: string };
}

interface Row {
  domain: string;
  domain_verification_token: string | null;
  domain_verified_at: Date | null;
  domain_checked_at: Date | null;
}

const COLUMNS = ['domain', 'domain_verification_token', 'domain_verified_at', 'domain_checked_at'];
const iso = (value: Date | null): string | null => (value ? new Date(value).toISOString() : null);

const viewOf = (row: Row & { domain_verification_token: string }): DomainVerification => ({
  domain: row.domain,
  verified: row.domain_verified_at !== null,
  verifiedAt: iso(row.domain_verified_at),
  checkedAt: iso(row.domain_checked_at),
  token: row.domain_verification_token,
  dns: { name: `${DNS_LABEL}.${row.domain}`, type: 'TXT', value: row.domain_verification_token },
  file: { url: `https://${row.domain}${WELL_KNOWN_PATH}`, content: row.domain_verification_token },
});

/** The owner's website row with a token (made on first use; a concurrent first use keeps whichever was written first). */
async function ownRow(runtime: Runtime, webmasterId: number, websiteId: number): Promise<Row & { domain_verification_token: string }> {
  checkWebsiteId(websiteId);
  const owned = () => runtime.db('websites').where({ id: websiteId, webmaster_id: webmasterId });
  await owned().whereNull('domain_verification_token').update({ domain_verification_token: TOKEN_PREFIX + randomBytes(24).toString('base64url') });
  const row = await owned().first<Row | undefined>(COLUMNS);
  if (!row?.domain_verification_token) return deniedAccess(runtime.db, webmasterId, websiteId);
  return row as Row & { domain_verification_token: string };
}

/** The website's verification status and the token to publish; another webmaster's website is 401, a missing one 404. */
export async function getDomainVerification(runtime: Runtime, webmasterId: number, websiteId: number): Promise<DomainVerification> {
  return viewOf(await ownRow(runtime, webmasterId, websiteId));
}

/** Whether the token is published: one TXT record equal to it, or a line of the file equal to it. */
async function published(runtime: Runtime, verification: DomainVerification): Promise<boolean> {
  const [records, file] = await Promise.all([
    runtime.domainProbe.txtRecords(verification.dns.name),
    runtime.domainProbe.fetchText(verification.file.url),
  ]);
  return records.some((record) => record.trim() === verification.token)
    || (file ?? '').split(/\r?\n/).some((line) => line.trim() === verification.token);
}

/**
 * Looks for the token now. Found: the domain is verified (from now). Not found: it is not, even if it was before
 * (a domain that changed hands stops vouching for the website at the next check).
 */
export async function checkDomainVerification(runtime: Runtime, webmasterId: number, websiteId: number, origin: ChangeOrigin): Promise<DomainVerification> {
  const current = viewOf(await ownRow(runtime, webmasterId, websiteId));
  const found = await published(runtime, current);
  const now = runtime.clock.now();
  const changes = { domain_checked_at: now, domain_verified_at: found ? (current.verifiedAt ? new Date(current.verifiedAt) : now) : null };
  await runtime.db.transaction(async (trx) => {
    await trx('websites').where({ id: websiteId, webmaster_id: webmasterId }).update(changes);
    // A check that confirms what was known changes nothing worth recording; one that flips the state does.
    if (found !== current.verified) {
      await record(trx, {
        origin, webmasterId, websiteId, at: now, action: 'domain.verification',
        before: { domain: current.domain, verified: current.verified }, after: { domain: current.domain, verified: found },
      });
    }
  });
  runtime.log.info('domain verification checked', { website_id: websiteId, domain: current.domain, verified: found });
  return { ...current, verified: found, verifiedAt: iso(changes.domain_verified_at), checkedAt: now.toISOString() };
}
