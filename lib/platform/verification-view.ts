import type { ListedVerification } from '../verification/listing.js';
import type { RuleOrigin } from '../policy/rule.js';
import { csvCell } from './statistics-view.js';

/** The most flows one CSV holds (the page says so); narrower filters select the rest. */
export const CSV_MAX_ROWS = 10_000;

/** The filters of the list as the form sends them: an empty field is no filter. */
export function filtersOf(query: Record<string, unknown>): Record<string, string> {
  const filters: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (typeof value === 'string' && value !== '') filters[name] = value;
    else if (typeof value !== 'string') filters[name] = String(value);
  }
  return filters;
}

/** A rule that applied, in a few characters: `preset fr 2026-01 #0`, `website #1`. */
export const ruleLabel = (origin: RuleOrigin): string =>
  origin.kind === 'preset'
    ? `preset ${origin.preset} ${origin.version} #${String(origin.rule)}`
    : `website #${String(origin.rule)}`;

const COLUMNS = [
  'id',
  'environment',
  'client_id',
  'started_at',
  'completed_at',
  'outcome',
  'challenge',
  'assurance_level',
  'age_threshold',
  'country',
  'country_subdivision',
  'reused',
  'returned_to_website',
  'rules',
];

/** The flows as CSV, one line each, newest first. */
export function verificationsCsv(flows: ListedVerification[]): string {
  const lines = flows.map((flow) => [
    flow.id,
    flow.environment,
    flow.clientId,
    flow.startedAt,
    flow.completedAt,
    flow.outcome,
    flow.challenge,
    flow.assuranceLevel,
    flow.ageThreshold,
    flow.country,
    flow.countrySubdivision,
    String(flow.reused),
    String(flow.returnedToWebsite),
    flow.rules.map(ruleLabel).join('; '),
  ]);
  return [COLUMNS, ...lines].map((line) => line.map(csvCell).join(',')).join('\r\n') + '\r\n';
}
