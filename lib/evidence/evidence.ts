import type { FlattenedJWS } from 'jose';
import type { JWKS } from 'oidc-provider';
import { Refusal } from '../refusal.js';
import { dayRange } from '../statistics/days.js';
import { checkWebsiteId, deniedAccess } from '../websites/ownership.js';
import { websiteRules, type WebsiteRules } from '../websites/policy.js';
import { validator } from '../websites/validation.js';
import { collectEvidence, type EvidencePeriod, type EvidenceServices } from './collect.js';
import { EVIDENCE_MAX_DAYS, evidenceQuerySchema } from './schemas.js';
import { signEvidence } from './sign.js';

/** What a signed pack takes: what it is made from, and the provider's keys. */
export type EvidenceSigningServices = EvidenceServices & {
  config: EvidenceServices['config'] & { readonly jwks: JWKS };
};

const validateQuery = validator<{ from: string; to: string }>(evidenceQuerySchema, 'query');

/** The period a query names: two days of the calendar, in order, at most EVIDENCE_MAX_DAYS apart (else 400). */
export function evidencePeriod(query: unknown): EvidencePeriod {
  const { from, to } = validateQuery(query);
  return { from, to, ...dayRange(from, to, EVIDENCE_MAX_DAYS) };
}

const signed = async (runtime: EvidenceSigningServices, website: WebsiteRules, period: EvidencePeriod) =>
  signEvidence(runtime.config.jwks, await collectEvidence(runtime, website, period));

/** A website's evidence pack for the period the query names, for its account (docs/evidence.md). */
export async function websiteEvidence(
  runtime: EvidenceSigningServices,
  webmasterId: number,
  websiteId: number,
  query: unknown,
): Promise<FlattenedJWS> {
  const period = evidencePeriod(query);
  checkWebsiteId(websiteId);
  const website = await websiteRules(runtime.db, websiteId, webmasterId);
  if (!website) return deniedAccess(runtime.db, webmasterId, websiteId);
  return signed(runtime, website, period);
}

/** Any website's evidence pack, for the operator (`age-provider evidence export`). */
export async function operatorEvidence(
  runtime: EvidenceSigningServices,
  websiteId: number,
  period: EvidencePeriod,
): Promise<FlattenedJWS> {
  const website = await websiteRules(runtime.db, websiteId, null);
  if (!website) throw new Refusal('not_found', `No website ${websiteId}.`);
  return signed(runtime, website, period);
}
