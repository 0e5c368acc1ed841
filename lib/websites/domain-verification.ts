import type { ChangeOrigin } from '../changes.js';
import { randomBytes } from 'node:crypto';
import { Refusal } from '../refusal.js';
import type { WebsiteServices } from './services.js';
import { checkWebsiteId, deniedAccess } from './ownership.js';
import { retriedTransaction } from '../store/retry.js';
import { LOCAL_DEVELOPMENT_DOMAIN } from './validation.js';

/** Where the token is published: a TXT record on this name below the domain, or this file on the domain's https origin. */
export const DNS_LABEL = '_age-provider';
export const WELL_KNOWN_PATH = '/.well-known/age-provider.txt';
const TOKEN_PREFIX = 'age-provider-verification=';

/**
 * How a verified domain was verified: `published`, the webmaster's token found in DNS or the /.well-known file;
 * `operator`, the operator of this service vouched for it (`age-provider website vouch-domain`).
 */
export type DomainVerifiedBy = 'published' | 'operator';

/** What the platform page and the External API show about a website's domain. */
export interface DomainVerification {
  domain: string;
  verified: boolean;
  /** null while not verified */
  verifiedBy: DomainVerifiedBy | null;
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
  domain_verified_by: DomainVerifiedBy | null;
  domain_checked_at: Date | null;
}

const COLUMNS = [
  'domain',
  'domain_verification_token',
  'domain_verified_at',
  'domain_verified_by',
  'domain_checked_at',
];
const iso = (value: Date | null): string | null => (value ? new Date(value).toISOString() : null);

const viewOf = (row: Row & { domain_verification_token: string }): DomainVerification => ({
  domain: row.domain,
  verified: row.domain_verified_at !== null,
  verifiedBy: row.domain_verified_by,
  verifiedAt: iso(row.domain_verified_at),
  checkedAt: iso(row.domain_checked_at),
  token: row.domain_verification_token,
  dns: { name: `${DNS_LABEL}.${row.domain}`, type: 'TXT', value: row.domain_verification_token },
  file: { url: `https://${row.domain}${WELL_KNOWN_PATH}`, content: row.domain_verification_token },
});

/** The owner's website row with a token (made on first use; a concurrent first use keeps whichever was written first). */
async function ownRow(
  runtime: WebsiteServices,
  webmasterId: number,
  websiteId: number,
): Promise<Row & { domain_verification_token: string }> {
  checkWebsiteId(websiteId);
  const owned = () => runtime.db('websites').where({ id: websiteId, webmaster_id: webmasterId });
  await owned()
    .whereNull('domain_verification_token')
    .update({ domain_verification_token: TOKEN_PREFIX + randomBytes(24).toString('base64url') });
  const row = await owned().first<Row | undefined>(COLUMNS);
  if (!row?.domain_verification_token) return deniedAccess(runtime.db, webmasterId, websiteId);
  return row as Row & { domain_verification_token: string };
}

/** The website's verification status and the token to publish; another webmaster's website is 401, a missing one 404. */
export async function getDomainVerification(
  runtime: WebsiteServices,
  webmasterId: number,
  websiteId: number,
): Promise<DomainVerification> {
  return viewOf(await ownRow(runtime, webmasterId, websiteId));
}

/** Whether the token is published: one TXT record equal to it, or a line of the file equal to it. */
async function published(runtime: WebsiteServices, verification: DomainVerification): Promise<boolean> {
  // Nobody can publish for localhost (every developer's own machine, which the probe never reaches): only the operator can vouch for it.
  if (verification.domain === LOCAL_DEVELOPMENT_DOMAIN) return false;
  const [records, file] = await Promise.all([
    runtime.domainProbe.txtRecords(verification.dns.name),
    runtime.domainProbe.fetchText(verification.file.url),
  ]);
  return (
    records.some((record) => record.trim() === verification.token) ||
    (file ?? '').split(/\r?\n/).some((line) => line.trim() === verification.token)
  );
}

/** The audit trail's view of a domain's state: whether it is verified, and how. */
const auditedState = (domain: string, verifiedBy: DomainVerifiedBy | null): Record<string, unknown> => ({
  domain,
  verified: verifiedBy !== null,
  verifiedBy,
});

/**
 * Looks for the token now. Found: the domain is verified (from now). Not found: it is not, even if it was before
 * (a domain that changed hands stops vouching for the website at the next check). A domain the operator vouched for
 * is not looked at: the operator's word stands until the operator withdraws it, so a webmaster's check neither drops
 * it nor turns it into a published proof (after a withdrawal, the next check finds a published token if there is one).
 */
export async function checkDomainVerification(
  runtime: WebsiteServices,
  webmasterId: number,
  websiteId: number,
  origin: ChangeOrigin,
): Promise<DomainVerification> {
  const current = viewOf(await ownRow(runtime, webmasterId, websiteId));
  const now = runtime.clock.now();
  if (current.verifiedBy === 'operator') {
    await runtime.db('websites').where({ id: websiteId, webmaster_id: webmasterId }).update({ domain_checked_at: now });
    runtime.log.info('domain verification checked', {
      website_id: websiteId,
      domain: current.domain,
      verified: true,
      verified_by: 'operator',
    });
    return { ...current, checkedAt: now.toISOString() };
  }
  const found = await published(runtime, current);
  const verifiedBy: DomainVerifiedBy | null = found ? 'published' : null;
  const changes = {
    domain_checked_at: now,
    domain_verified_by: verifiedBy,
    domain_verified_at: found ? (current.verifiedAt ? new Date(current.verifiedAt) : now) : null,
  };
  const applied = await retriedTransaction(runtime.db, async (trx) => {
    // Only while no operator vouched meanwhile: a vouching that committed during the probe is not overwritten.
    const updated = await trx('websites')
      .where({ id: websiteId, webmaster_id: webmasterId })
      .whereRaw('domain_verified_by IS DISTINCT FROM ?', ['operator'])
      .update(changes);
    // A check that confirms what was known changes nothing worth recording; one that flips the state does.
    if (updated > 0 && found !== current.verified) {
      await runtime.recordChange(trx, {
        origin,
        webmasterId,
        websiteId,
        at: now,
        action: 'domain.verification',
        before: auditedState(current.domain, current.verifiedBy),
        after: auditedState(current.domain, verifiedBy),
      });
    }
    return updated > 0;
  });
  if (!applied) return getDomainVerification(runtime, webmasterId, websiteId);
  runtime.log.info('domain verification checked', { website_id: websiteId, domain: current.domain, verified: found });
  return {
    ...current,
    verified: found,
    verifiedBy,
    verifiedAt: iso(changes.domain_verified_at),
    checkedAt: now.toISOString(),
  };
}

/** What the operator's domain commands need: the database and the time, no webmaster and no probe. */
export type OperatorServices = Pick<WebsiteServices, 'db' | 'clock' | 'recordChange'>;

/** A website's domain as the operator's commands report it. */
export interface DomainVouching {
  websiteId: number;
  domain: string;
  verified: boolean;
  verifiedBy: DomainVerifiedBy | null;
  /** false when the domain already was in the state asked for */
  changed: boolean;
}

/**
 * The operator vouches for a website's domain (`vouch`), or withdraws that (`!vouch`): any website, whoever owns it,
 * which is why no webmaster surface calls this. Recorded in the website's audit trail in the same transaction; a
 * request that changes nothing (vouching again, withdrawing what was not vouched) records nothing. Withdrawing leaves
 * a domain verified by its published token as it is. A missing website is refused as not found.
 */
async function setOperatorVouching(
  services: OperatorServices,
  websiteId: number,
  vouch: boolean,
  origin: ChangeOrigin,
): Promise<DomainVouching> {
  checkWebsiteId(websiteId);
  const now = services.clock.now();
  return retriedTransaction(services.db, async (trx) => {
    const row = await trx('websites')
      .where({ id: websiteId })
      .forUpdate()
      .first<
        (Pick<Row, 'domain' | 'domain_verified_at' | 'domain_verified_by'> & { webmaster_id: number }) | undefined
      >('webmaster_id', 'domain', 'domain_verified_at', 'domain_verified_by');
    if (!row) throw new Refusal('not_found', 'Website not found.');
    const before = row.domain_verified_by;
    const after: DomainVerifiedBy | null = vouch ? 'operator' : before === 'operator' ? null : before;
    if (after !== before) {
      // A vouched domain keeps the moment it was first verified, when it already was.
      await trx('websites')
        .where({ id: websiteId })
        .update({ domain_verified_by: after, domain_verified_at: after ? (row.domain_verified_at ?? now) : null });
      await services.recordChange(trx, {
        origin,
        webmasterId: Number(row.webmaster_id),
        websiteId,
        at: now,
        action: 'domain.verification',
        before: auditedState(row.domain, before),
        after: auditedState(row.domain, after),
      });
    }
    return { websiteId, domain: row.domain, verified: after !== null, verifiedBy: after, changed: after !== before };
  });
}

/** The operator vouches for the website's domain: visitors see it verified, whatever is published (see setOperatorVouching). */
export const vouchForDomain = (
  services: OperatorServices,
  websiteId: number,
  origin: ChangeOrigin,
): Promise<DomainVouching> => setOperatorVouching(services, websiteId, true, origin);

/** The operator withdraws its vouching: the domain is no longer verified until a published token is found (see setOperatorVouching). */
export const revokeDomainVouching = (
  services: OperatorServices,
  websiteId: number,
  origin: ChangeOrigin,
): Promise<DomainVouching> => setOperatorVouching(services, websiteId, false, origin);
