import { createHash } from 'node:crypto';

/** What an entry says, as hashed: everything but its own hash and its row id. */
export interface EntryContent {
  chain: string;
  seq: number;
  webmasterId: number;
  websiteId: number | null;
  at: string;
  actor: { type: string; id: string };
  address: string | null;
  action: string;
  before: unknown;
  after: unknown;
  previousHash: string;
}

/** JSON with every object's keys in order: the database hands jsonb back in its own key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonical(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The entry's hash: SHA-256 (hex) of its canonical JSON, which includes the previous entry's hash. */
export const hashOf = (content: EntryContent): string => createHash('sha256').update(canonical(content)).digest('hex');

/** The previous hash of a chain's first entry. */
export const GENESIS = '';

/**
 * The action of the tombstone a closed account's chain is cut to (lib/audit/trail.ts eraseChains): the entries before
 * it are gone, so a chain may start with it, from the previous hash it names.
 */
export const ERASED = 'chain.erased';

/** Where a chain breaks, said so an operator can find the row. */
export interface ChainBreak {
  chain: string;
  seq: number;
  id: number | null;
  problem: string;
}

/** Where a chain, or a segment of one, stands: its last entry's seq and hash (seq 0 and GENESIS before the first). */
export interface ChainHead {
  seq: number;
  hash: string;
}

/**
 * Checks one chain's entries (in seq order) against each other and against its head: every entry's hash must match its
 * content, link to the previous one, and follow it by one; the last must be the head. A chain cut to a tombstone
 * starts at it; a segment (an evidence pack's, lib/evidence) starts after `from`, the head of the entries before it.
 * The first break, or undefined.
 */
export function firstBreak(
  chain: string,
  entries: ReadonlyArray<EntryContent & { id: number; hash: string }>,
  head: ChainHead | undefined,
  from?: ChainHead,
): ChainBreak | undefined {
  const first = entries[0];
  let previous =
    from ??
    (first?.action === ERASED && first.seq > 1
      ? { seq: first.seq - 1, hash: first.previousHash }
      : { seq: 0, hash: GENESIS });
  for (const entry of entries) {
    if (entry.seq !== previous.seq + 1) {
      return {
        chain,
        seq: previous.seq + 1,
        id: null,
        problem: `entry ${previous.seq + 1} is missing (deleted): the next one found is ${entry.seq}`,
      };
    }
    if (entry.previousHash !== previous.hash) {
      return {
        chain,
        seq: entry.seq,
        id: entry.id,
        problem: `entry ${entry.seq} does not link to entry ${previous.seq} (its previous hash differs)`,
      };
    }
    const { id: _id, hash, ...content } = entry;
    if (hashOf(content) !== hash) {
      return {
        chain,
        seq: entry.seq,
        id: entry.id,
        problem: `entry ${entry.seq} was edited: its content no longer matches its hash`,
      };
    }
    previous = { seq: entry.seq, hash: entry.hash };
  }
  if (!head)
    return entries.length > 0
      ? { chain, seq: previous.seq, id: null, problem: 'the chain has no head (audit_heads row deleted)' }
      : undefined;
  if (head.seq !== previous.seq || head.hash !== previous.hash) {
    return {
      chain,
      seq: previous.seq + 1,
      id: null,
      problem: `the chain ends at entry ${previous.seq} but its head says ${head.seq}: the newest entries were deleted or altered`,
    };
  }
  return undefined;
}
