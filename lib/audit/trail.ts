import type { Knex } from 'knex';
import type { Actor, Change } from '../changes.js';
import type { Database } from '../store/database.js';
import { ERASED, firstBreak, GENESIS, hashOf, type ChainBreak, type ChainHead, type EntryContent } from './chain.js';

/** An entry as the API, the Activity page and the export show it. */
export interface AuditEntry {
  id: number;
  chain: string;
  seq: number;
  /** the account the chain belongs to: hashed with the rest, so an export must carry it to be checked on its own */
  webmasterId: number;
  websiteId: number | null;
  at: string;
  actor: { type: Actor['type']; id: string };
  address: string | null;
  action: string;
  before: unknown;
  after: unknown;
  previousHash: string;
  hash: string;
}

interface EntryRow {
  id: number;
  chain: string;
  seq: number;
  webmaster_id: number;
  website_id: number | null;
  at: Date;
  actor_type: Actor['type'];
  actor_id: string;
  address: string | null;
  action: string;
  before: unknown;
  after: unknown;
  previous_hash: string;
  hash: string;
}

/** Whose chain: a website's changes form one; a webmaster's own (the API token), another. */
export type ChainOwner = { website: number } | { webmaster: number };
const chainName = (owner: ChainOwner): string =>
  'website' in owner ? `website:${owner.website}` : `webmaster:${owner.webmaster}`;
const chainOf = (change: Pick<Change, 'webmasterId' | 'websiteId'>): string =>
  chainName(change.websiteId === null ? { webmaster: change.webmasterId } : { website: change.websiteId });

const contentOf = (row: EntryRow): EntryContent => ({
  chain: row.chain,
  seq: row.seq,
  webmasterId: Number(row.webmaster_id),
  websiteId: row.website_id === null ? null : Number(row.website_id),
  at: new Date(row.at).toISOString(),
  actor: { type: row.actor_type, id: row.actor_id },
  address: row.address,
  action: row.action,
  before: row.before,
  after: row.after,
  previousHash: row.previous_hash,
});

/** Everything the entry's hash covers, with its id and hash: whoever receives it can check the chain from it alone. */
const present = (row: EntryRow): AuditEntry => ({
  id: Number(row.id),
  ...contentOf(row),
  actor: { type: row.actor_type, id: row.actor_id },
  hash: row.hash,
});

/**
 * Appends a change to its chain, in the caller's transaction (the entry exists exactly when the change committed).
 * The chain's head row is taken first with an upsert that locks it: appends to one chain run one after the other, so
 * each links to the one before; appends to different websites do not wait for each other.
 */
export async function record(q: Knex.Transaction, change: Change): Promise<void> {
  const chain = chainOf(change);
  const [head] = await q('audit_heads')
    .insert({ chain, seq: 0, hash: GENESIS })
    .onConflict('chain')
    .merge({ chain })
    .returning<Array<{ seq: number; hash: string }>>(['seq', 'hash']);
  const content: EntryContent = {
    chain,
    seq: head!.seq + 1,
    webmasterId: change.webmasterId,
    websiteId: change.websiteId,
    at: change.at.toISOString(),
    actor: { type: change.origin.actor.type, id: String(change.origin.actor.id) },
    address: change.origin.address,
    action: change.action,
    before: change.before,
    after: change.after,
    previousHash: head!.hash,
  };
  const hash = hashOf(content);
  await q('audit_entries').insert({
    chain,
    seq: content.seq,
    webmaster_id: change.webmasterId,
    website_id: change.websiteId,
    at: change.at,
    actor_type: content.actor.type,
    actor_id: content.actor.id,
    address: content.address,
    action: content.action,
    before: content.before === null ? null : JSON.stringify(content.before),
    after: content.after === null ? null : JSON.stringify(content.after),
    previous_hash: content.previousHash,
    hash,
  });
  await q('audit_heads').where('chain', chain).update({ seq: content.seq, hash });
}

/**
 * Cuts every chain of a closed account to a tombstone: its entries (which name the members who acted and the
 * addresses they acted from) are deleted, and one entry takes their place that names no person: the operator's
 * `account closed`, no address, the number of entries erased. It links to the erased chain's last hash and its seq
 * follows it, so the chain still verifies (lib/audit/chain.ts) and an export taken before the closure can be matched
 * against it. Returns the number of chains cut.
 */
export async function eraseChains(q: Knex.Transaction, webmasterId: number, at: Date): Promise<number> {
  const chains = await q('audit_entries').where('webmaster_id', webmasterId).distinct('chain').pluck<string[]>('chain');
  for (const chain of chains) {
    const head = await q('audit_heads')
      .where('chain', chain)
      .forUpdate()
      .first<{ seq: number; hash: string }>('seq', 'hash');
    await q('audit_entries').where('chain', chain).delete();
    const content: EntryContent = {
      chain,
      seq: head.seq + 1,
      webmasterId,
      websiteId: chain.startsWith('website:') ? Number(chain.slice('website:'.length)) : null,
      at: at.toISOString(),
      actor: { type: 'operator', id: 'account closed' },
      address: null,
      action: ERASED,
      before: { entries: head.seq },
      after: null,
      previousHash: head.hash,
    };
    const hash = hashOf(content);
    await q('audit_entries').insert({
      chain,
      seq: content.seq,
      webmaster_id: webmasterId,
      website_id: content.websiteId,
      at,
      actor_type: 'operator',
      actor_id: content.actor.id,
      address: null,
      action: ERASED,
      before: JSON.stringify(content.before),
      after: null,
      previous_hash: head.hash,
      hash,
    });
    await q('audit_heads').where('chain', chain).update({ seq: content.seq, hash });
  }
  return chains.length;
}

/** A page of a website's entries, newest first, older than `before` (an entry id) when given. */
export async function websiteEntries(
  db: Database,
  websiteId: number,
  page: { limit: number; before?: number },
): Promise<AuditEntry[]> {
  const rows = await db('audit_entries')
    .where('chain', chainName({ website: websiteId }))
    .modify((query) => {
      if (page.before !== undefined) query.where('id', '<', page.before);
    })
    .orderBy('id', 'desc')
    .limit(page.limit)
    .select<EntryRow[]>();
  return rows.map(present);
}

/** Every entry of a chain, oldest first: what an export holds, checkable on its own. */
export async function wholeChain(db: Database, owner: ChainOwner): Promise<AuditEntry[]> {
  const rows = await db('audit_entries').where('chain', chainName(owner)).orderBy('seq').select<EntryRow[]>();
  return rows.map(present);
}

/** A chain's head (its last entry's seq and hash), as audit_heads holds it; undefined before its first entry. */
export async function chainHead(db: Database, owner: ChainOwner): Promise<ChainHead | undefined> {
  const head = await db('audit_heads').where('chain', chainName(owner)).first<ChainHead | undefined>('seq', 'hash');
  return head && { seq: head.seq, hash: head.hash };
}

/** Checks every chain; the first break of each broken one (none: the trail is intact). */
export async function verifyTrail(db: Database): Promise<{ chains: number; entries: number; breaks: ChainBreak[] }> {
  const heads = new Map(
    (await db('audit_heads').select<Array<{ chain: string; seq: number; hash: string }>>()).map((head) => [
      head.chain,
      head,
    ]),
  );
  const chains = new Set([...heads.keys(), ...(await db('audit_entries').distinct('chain').pluck<string[]>('chain'))]);
  const breaks: ChainBreak[] = [];
  let entries = 0;
  for (const chain of [...chains].sort()) {
    const rows = await db('audit_entries').where('chain', chain).orderBy('seq').select<EntryRow[]>();
    entries += rows.length;
    const broken = firstBreak(
      chain,
      rows.map((row) => ({ ...contentOf(row), id: Number(row.id), hash: row.hash })),
      heads.get(chain),
    );
    if (broken) breaks.push(broken);
  }
  return { chains: chains.size, entries, breaks };
}
