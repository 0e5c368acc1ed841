import type { ChallengeServices } from './services.js';
import { Refusal } from '../refusal.js';
import type { Database } from '../store/database.js';
import { dayRange, isStorableInstant } from '../statistics/days.js';
import { checkWebsiteId, websiteAccess } from '../websites/ownership.js';
import { validator } from '../websites/validation.js';
import type { RuleOrigin } from '../policy/rule.js';
import type { AssuranceLevel, Environment } from './challenge.js';
import {
  VERIFICATION_ID_PATTERN,
  VERIFICATION_PAGE_DEFAULT,
  VERIFICATION_PAGE_MAX,
  verificationQuerySchema,
  type Outcome,
} from './listing-schemas.js';

/** One flow of a website as its list shows it: never anything personal (no email, wallet content, address or card). */
export interface ListedVerification {
  id: string;
  environment: Environment;
  clientId: string | null;
  startedAt: string | null;
  completedAt: string;
  outcome: Outcome;
  challenge: string | null;
  assuranceLevel: AssuranceLevel | null;
  ageThreshold: number | null;
  country: string | null;
  countrySubdivision: string | null;
  reused: boolean;
  returnedToWebsite: boolean;
  rules: RuleOrigin[];
}

/** The list's filters, each optional. */
export interface VerificationFilters {
  from?: string;
  to?: string;
  environment?: Environment;
  challenge?: string;
  outcome?: Outcome;
  country?: string;
}

interface ListedRow {
  uid: string;
  environment: Environment;
  client_id: string | null;
  started_at: Date | string | null;
  completed_at: Date | string;
  outcome: Outcome;
  challenge: string | null;
  assurance_level: AssuranceLevel | null;
  age_threshold: number | null;
  country: string | null;
  country_subdivision: string | null;
  reused: boolean;
  returned: boolean;
  policy: RuleOrigin[];
}

/**
 * A website's flows, the verifications and the flows that ended without one, as one relation. `website_id` is
 * bound in both halves: tenancy is in the query itself.
 */
const FLOWS = `(
  SELECT uid, environment, client_id, started_at, verified_at AS completed_at, 'verified' AS outcome, method AS challenge,
         assurance_level, age_threshold, country::text AS country, country_subdivision, reused, grant_id IS NOT NULL AS returned, policy
    FROM verifications WHERE website_id = ?
  UNION ALL
  SELECT uid, environment, client_id, started_at, ended_at, outcome, challenge,
         NULL, NULL, NULL, NULL, false, outcome <> 'expired', policy
    FROM flow_endings WHERE website_id = ?
) flow`;

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

const listed = (row: ListedRow): ListedVerification => ({
  id: row.uid,
  environment: row.environment,
  clientId: row.client_id,
  startedAt: iso(row.started_at),
  completedAt: iso(row.completed_at)!,
  outcome: row.outcome,
  challenge: row.challenge,
  assuranceLevel: row.assurance_level,
  ageThreshold: row.age_threshold,
  country: row.country,
  countrySubdivision: row.country_subdivision,
  reused: row.reused,
  returnedToWebsite: row.returned,
  rules: row.policy,
});

/** Where a page ends: the last flow's completion time and id, as an opaque text. */
const cursorOf = (flow: ListedVerification): string =>
  Buffer.from(`${flow.completedAt}|${flow.id}`).toString('base64url');

function parseCursor(cursor: string): { at: Date; uid: string } {
  const [at, uid, extra] = Buffer.from(cursor, 'base64url').toString().split('|');
  const time = new Date(at ?? '');
  if (extra !== undefined || !uid || !new RegExp(VERIFICATION_ID_PATTERN).test(uid) || !isStorableInstant(time)) {
    throw new Refusal('invalid', 'Invalid cursor: pass the `next` of the previous page unchanged.');
  }
  return { at: time, uid };
}

/** At most `limit` flows of a website matching `filters`, newest first, after `after` (the previous page's last). */
async function websiteFlows(
  db: Database,
  websiteId: number,
  filters: VerificationFilters,
  limit: number,
  after?: { at: Date; uid: string },
): Promise<ListedVerification[]> {
  const conditions: string[] = [];
  const bindings: unknown[] = [websiteId, websiteId];
  if (filters.from || filters.to) {
    const { start, end } = dayRange(filters.from ?? '0001-01-01', filters.to ?? '9999-12-31');
    conditions.push('completed_at >= ? AND completed_at < ?');
    bindings.push(start, end);
  }
  for (const [column, value] of [
    ['environment', filters.environment],
    ['challenge', filters.challenge],
    ['outcome', filters.outcome],
    ['country', filters.country],
  ] as const) {
    if (value !== undefined) {
      conditions.push(`${column} = ?`);
      bindings.push(value);
    }
  }
  if (after) {
    conditions.push('(completed_at, uid) < (?, ?)');
    bindings.push(after.at, after.uid);
  }
  const { rows } = await db.raw<{ rows: ListedRow[] }>(
    `SELECT * FROM ${FLOWS} ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''} ORDER BY completed_at DESC, uid DESC LIMIT ?`,
    [...bindings, limit] as never[],
  );
  return rows.map(listed);
}

const validateQuery = validator<VerificationFilters & { limit?: string; cursor?: string }>(
  verificationQuerySchema,
  'query',
);

/** A page of a website's flows for its owner, newest first; `next` continues with older ones. */
export async function listVerifications(
  runtime: Pick<ChallengeServices, 'db'>,
  webmasterId: number,
  websiteId: number,
  query: unknown,
): Promise<{ verifications: ListedVerification[]; next: string | null }> {
  const { limit, cursor, ...filters } = validateQuery(query);
  if (filters.from && filters.to) dayRange(filters.from, filters.to);
  const after = cursor ? parseCursor(cursor) : undefined;
  checkWebsiteId(websiteId);
  await websiteAccess(runtime.db, webmasterId, websiteId);
  const size = Math.min(Number(limit ?? VERIFICATION_PAGE_DEFAULT), VERIFICATION_PAGE_MAX);
  // One more than asked tells whether an older page exists.
  const flows = await websiteFlows(runtime.db, websiteId, filters, size + 1, after);
  const page = flows.slice(0, size);
  return { verifications: page, next: flows.length > size ? cursorOf(page.at(-1)!) : null };
}

/** Every flow of a website matching `query`'s filters (validated as the API's), newest first, at most `cap` (the platform's CSV). */
export async function allVerifications(
  runtime: Pick<ChallengeServices, 'db'>,
  webmasterId: number,
  websiteId: number,
  query: unknown,
  cap: number,
): Promise<ListedVerification[]> {
  const { limit: _limit, cursor: _cursor, ...filters } = validateQuery(query);
  if (filters.from && filters.to) dayRange(filters.from, filters.to);
  checkWebsiteId(websiteId);
  await websiteAccess(runtime.db, webmasterId, websiteId);
  return websiteFlows(runtime.db, websiteId, filters, cap);
}

/** One flow of a website by its id; another website's, or one swept past its retention, is not found. */
export async function getVerification(
  runtime: Pick<ChallengeServices, 'db'>,
  webmasterId: number,
  websiteId: number,
  verificationId: string,
): Promise<ListedVerification> {
  checkWebsiteId(websiteId);
  await websiteAccess(runtime.db, webmasterId, websiteId);
  const notFound = new Refusal('not_found', 'Verification not found.');
  if (!new RegExp(VERIFICATION_ID_PATTERN).test(verificationId)) throw notFound;
  const { rows } = await runtime.db.raw<{ rows: ListedRow[] }>(`SELECT * FROM ${FLOWS} WHERE uid = ?`, [
    websiteId,
    websiteId,
    verificationId,
  ]);
  if (!rows[0]) throw notFound;
  return listed(rows[0]);
}
