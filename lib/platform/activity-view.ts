import type { AuditEntry } from '../audit/trail.js';
import { formatTimestamp } from './page.js';

/** One field an entry changed, as the Activity page shows it. */
interface FieldChange {
  field: string;
  before: string;
  after: string;
}

/** An audit entry as the Activity page shows it. */
export interface ActivityRow {
  seq: number;
  at: string;
  actor: AuditEntry['actor'];
  address: string | null;
  action: string;
  changes: FieldChange[];
  /** false for a creation (nothing before) or a deletion (nothing after): the page leaves out that empty column */
  shows: { before: boolean; after: boolean };
}

const shown = (value: unknown): string => {
  if (value === undefined || value === null) return '—';
  if (Array.isArray(value)) return value.length === 0 ? '—' : value.map(shown).join(', ');
  if (typeof value === 'object')
    return Object.entries(value)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, inner]) => `${key}: ${shown(inner)}`)
      .join('; ');
  return String(value);
};

const fieldsOf = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};

/** The fields whose value differs between before and after (all of them for a creation or a deletion), by name. */
function changesOf(before: unknown, after: unknown): FieldChange[] {
  const was = fieldsOf(before);
  const is = fieldsOf(after);
  return [...new Set([...Object.keys(was), ...Object.keys(is)])]
    .sort()
    .filter((field) => JSON.stringify(was[field]) !== JSON.stringify(is[field]))
    .map((field) => ({ field, before: shown(was[field]), after: shown(is[field]) }));
}

export const activityRows = (entries: AuditEntry[]): ActivityRow[] =>
  entries.map((entry) => ({
    seq: entry.seq,
    at: formatTimestamp(new Date(entry.at)),
    actor: entry.actor,
    address: entry.address,
    action: entry.action,
    changes: changesOf(entry.before, entry.after),
    shows: {
      before: entry.before !== null && entry.before !== undefined,
      after: entry.after !== null && entry.after !== undefined,
    },
  }));
