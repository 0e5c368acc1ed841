import { isDeepStrictEqual } from 'node:util';
import {
  createLocalJWKSet,
  decodeProtectedHeader,
  flattenedVerify,
  type FlattenedJWSInput,
  type JSONWebKeySet,
} from 'jose';
import { firstBreak, hashOf } from '../audit/chain.js';
import type { AuditEntry } from '../audit/trail.js';
import { conforms } from '../websites/validation.js';
import { totalsOf } from './collect.js';
import { EVIDENCE_TYPE, evidencePayloadSchema, RULE_ACTIONS, type EvidencePayload } from './document.js';
import { evidencePackSchema } from './schemas.js';

/** One check of a pack, as `evidence verify` prints it: what was checked and what was found. */
export interface EvidenceCheck {
  name: string;
  ok: boolean;
  detail: string;
}

/** Signature algorithms a pack may carry: the provider's asymmetric ones, never `none` nor a shared secret. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

const isPack = conforms<FlattenedJWSInput>(evidencePackSchema);
const isPayload = conforms<EvidencePayload>(evidencePayloadSchema);

const pass = (name: string, detail: string): EvidenceCheck => ({ name, ok: true, detail });
const fail = (name: string, detail: string): EvidenceCheck => ({ name, ok: false, detail });

/** The signature against `keys`; the payload it covers, when it verifies. */
async function signatureOf(text: string, keys: JSONWebKeySet): Promise<{ check: EvidenceCheck; payload?: Uint8Array }> {
  let pack: unknown;
  try {
    pack = JSON.parse(text);
  } catch {
    return { check: fail('signature', 'the file is not JSON: not an evidence pack') };
  }
  if (!isPack(pack))
    return {
      check: fail('signature', 'not a JWS in the flattened JSON serialization (protected, payload, signature)'),
    };
  let header;
  try {
    header = decodeProtectedHeader(pack);
  } catch {
    return { check: fail('signature', 'the protected header cannot be read') };
  }
  if (header.typ !== EVIDENCE_TYPE)
    return { check: fail('signature', `the JWS is of type ${String(header.typ)}, not ${EVIDENCE_TYPE}`) };
  if (typeof header.alg !== 'string' || !ALGORITHMS.includes(header.alg))
    return {
      check: fail('signature', `algorithm ${String(header.alg)} is not accepted (only ${ALGORITHMS.join(', ')})`),
    };
  try {
    const { payload } = await flattenedVerify(pack, createLocalJWKSet(keys), { algorithms: ALGORITHMS });
    return { check: pass('signature', `valid, key ${String(header.kid)} (${header.alg})`), payload };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why =
      code === 'ERR_JWKS_NO_MATCHING_KEY'
        ? `no published key ${String(header.kid)} for ${header.alg}`
        : code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED'
          ? `does not verify with key ${String(header.kid)}: the document was changed or signed by another key`
          : (error as Error).message;
    return { check: fail('signature', why) };
  }
}

/** The chain segment recomputed from its first head to its last, every entry within the period. */
function auditCheck(document: EvidencePayload): EvidenceCheck {
  const { chain, start, end, head, entries } = document.audit;
  const foreign = entries.find((entry) => entry.chain !== chain);
  if (foreign) return fail('audit chain', `entry ${foreign.seq} belongs to ${foreign.chain}, not ${chain}`);
  const broken = firstBreak(chain, entries, end, start);
  if (broken) return fail('audit chain', broken.problem);
  const from = Date.parse(`${document.period.from}T00:00:00Z`);
  const to = Date.parse(`${document.period.to}T00:00:00Z`) + 86_400_000;
  const outside = entries.find((entry) => !(Date.parse(entry.at) >= from && Date.parse(entry.at) < to));
  if (outside) return fail('audit chain', `entry ${outside.seq} (${outside.at}) is outside the period`);
  if (head && (head.seq < end.seq || (head.seq === end.seq && head.hash !== end.hash)))
    return fail('audit chain', `the chain's head (entry ${head.seq}) does not follow the period's last entry`);
  return pass(
    'audit chain',
    `${entries.length} entries recomputed from entry ${start.seq} to entry ${end.seq} (${end.hash.slice(0, 16) || 'genesis'}); chain head at export: entry ${head?.seq ?? 0}`,
  );
}

/** The website's rule changes: the chain's own entries, all of them, the one before the period intact. */
function rulesCheck(document: EvidencePayload): EvidenceCheck {
  const { start } = document.audit;
  const bySeq = new Map(document.audit.entries.map((entry) => [entry.seq, entry]));
  const changes = document.rules.website.changes;
  const earlier = changes.filter((entry) => entry.seq <= start.seq);
  if (earlier.length > 1) return fail('rules', 'more than one change before the period');
  for (const change of changes) {
    if (!RULE_ACTIONS.includes(change.action))
      return fail('rules', `entry ${change.seq} is a ${change.action}, not a rule change`);
    if (change.seq > start.seq && !isDeepStrictEqual(change, bySeq.get(change.seq)))
      return fail('rules', `change ${change.seq} differs from the chain's entry ${change.seq}`);
    const { id: _id, hash, ...content } = change;
    if (hashOf(content) !== hash)
      return fail('rules', `change ${change.seq} was edited: it no longer matches its hash`);
  }
  const listed = new Set(changes.map((change) => change.seq));
  const missing = document.audit.entries.find(
    (entry: AuditEntry) => RULE_ACTIONS.includes(entry.action) && !listed.has(entry.seq),
  );
  if (missing)
    return fail('rules', `the chain's entry ${missing.seq} (${missing.action}) is missing from the rule changes`);
  return pass(
    'rules',
    `${document.rules.presets.length} operator presets; ${changes.length - earlier.length} website rule changes in the period${earlier.length ? `, and the one in force at its start (entry ${earlier[0]!.seq})` : ''}`,
  );
}

/** The totals equal the sum of the days, every day within the period and listed once. */
function statisticsCheck(document: EvidencePayload): EvidenceCheck {
  const { days, totals } = document.statistics;
  const seen = new Set<string>();
  for (const day of days) {
    if (day.date < document.period.from || day.date > document.period.to)
      return fail('statistics', `day ${day.date} is outside the period`);
    const key = `${day.date} ${day.environment}`;
    if (seen.has(key)) return fail('statistics', `day ${key} is listed twice`);
    seen.add(key);
  }
  const sums = totalsOf(days);
  for (const environment of ['LIVE', 'TEST'] as const) {
    if (!isDeepStrictEqual(sums[environment], totals[environment]))
      return fail('statistics', `the ${environment} totals differ from the sum of the days`);
  }
  return pass(
    'statistics',
    `totals equal the sum of ${days.length} days (LIVE ${totals.LIVE.passed} passed, ${totals.LIVE.reused} reused, ${totals.LIVE.refused} refused)`,
  );
}

/**
 * Checks an evidence pack: the signature against `keys` (the service's published JWKS), then the document's own
 * consistency. A pack passes when every check does; the checks after a failed signature are not run, since nothing
 * in an unsigned document can be believed.
 */
export async function checkEvidence(text: string, keys: JSONWebKeySet): Promise<EvidenceCheck[]> {
  const { check, payload } = await signatureOf(text, keys);
  if (!payload) return [check];
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload));
  } catch {
    return [check, fail('document', 'the signed payload is not JSON')];
  }
  if (!isPayload(document)) return [check, fail('document', 'the signed payload is not an evidence pack of format 1')];
  const described = pass(
    'document',
    `website ${document.website.id} (${document.website.domain}), ${document.period.from} to ${document.period.to}, issued by ${document.issuer} at ${document.issuedAt}, age-provider ${document.service.version}`,
  );
  return [check, described, auditCheck(document), rulesCheck(document), statisticsCheck(document)];
}
