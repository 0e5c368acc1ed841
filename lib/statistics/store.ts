import type { Database } from '../store/database.js';
import type { AssuranceLevel, Environment } from '../verification/challenge.js';
import type { TalliedDay } from './tally.js';

/** Per challenge: checks that passed or refused, and results reused with it. */
export interface ChallengeCounts {
  passed: number;
  refused: number;
  reused: number;
}

/** One website's day in one environment, as stored: counts only, nothing about a visitor. */
export interface DailyAggregate {
  websiteId: number;
  environment: Environment;
  day: string;
  started: number;
  passed: number;
  refused: number;
  abandoned: number;
  reused: number;
  byChallenge: Record<string, ChallengeCounts>;
  byCountry: Record<string, number>;
  /** verifications (passed and reused) per assurance level */
  byLevel: Record<string, number>;
  /** how many results took each number of seconds from the flow's start */
  secondsToResult: Record<string, number>;
}

interface AggregateRow {
  website_id: number;
  environment: Environment;
  day: string;
  started: number;
  passed: number;
  refused: number;
  abandoned: number;
  reused: number;
  by_challenge: Record<string, ChallengeCounts>;
  by_country: Record<string, number>;
  by_level: Record<string, number>;
  seconds_to_result: Record<string, number>;
}

interface VerificationRow {
  id: number;
  website_id: number;
  environment: Environment;
  method: string;
  country: string;
  assurance_level: AssuranceLevel;
  reused: boolean;
  verified_at: Date;
  started_at: Date | null;
}

/** Verifications counted per statement: a backlog is worked off in short transactions. */
const BATCH = 5000;

const COLUMNS = [
  'website_id',
  'environment',
  'day',
  'started',
  'passed',
  'refused',
  'abandoned',
  'reused',
  'by_challenge',
  'by_country',
  'by_level',
  'seconds_to_result',
];

const fromRow = (row: AggregateRow): DailyAggregate => ({
  websiteId: Number(row.website_id),
  environment: row.environment,
  day: row.day,
  started: row.started,
  passed: row.passed,
  refused: row.refused,
  abandoned: row.abandoned,
  reused: row.reused,
  byChallenge: row.by_challenge,
  byCountry: row.by_country,
  byLevel: row.by_level,
  secondsToResult: row.seconds_to_result,
});

const empty = (websiteId: number, environment: Environment, day: string): DailyAggregate => ({
  websiteId,
  environment,
  day,
  started: 0,
  passed: 0,
  refused: 0,
  abandoned: 0,
  reused: 0,
  byChallenge: {},
  byCountry: {},
  byLevel: {},
  secondsToResult: {},
});

const add = (counts: Record<string, number>, key: string, by = 1): void => {
  counts[key] = (counts[key] ?? 0) + by;
};
const challengeOf = (aggregate: DailyAggregate, challenge: string): ChallengeCounts =>
  (aggregate.byChallenge[challenge] ??= { passed: 0, refused: 0, reused: 0 });

/** What one rollup added, for the operator's counters: per challenge, outcome and environment. */
export type Counted = (
  challenge: string,
  outcome: 'passed' | 'reused' | 'refused' | 'abandoned',
  environment: Environment,
  count: number,
) => void;

/**
 * The verifications not yet counted (at most BATCH, the oldest first), marked counted by the statement that reads
 * them. A row is counted by the rollup whose statement sees it committed, whenever it commits: an id taken before a
 * higher one that committed first is no longer passed over (issue 37), and a row a visitor's request holds locked is
 * skipped, not waited for, and counted by a later rollup.
 */
async function takeUncounted(trx: Database): Promise<VerificationRow[]> {
  const { rows } = await trx.raw<{ rows: VerificationRow[] }>(
    `WITH batch AS (SELECT id FROM verifications WHERE NOT counted ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED)
     UPDATE verifications verification SET counted = true FROM batch WHERE verification.id = batch.id
     RETURNING verification.id, verification.website_id, verification.environment, verification.method, verification.country,
               verification.assurance_level, verification.reused, verification.verified_at, verification.started_at`,
    [BATCH],
  );
  return rows;
}

/**
 * Adds to the daily aggregates every verification not yet counted and the tallied events, in one transaction: the
 * counted mark and the aggregates are written together or not at all, so each verification is counted once,
 * whichever instance rolls up; the rollup row is locked, so instances roll up one after the other. Returns how many
 * verifications were counted.
 */
export async function rollUp(db: Database, tallied: TalliedDay[], counted: Counted): Promise<number> {
  return db.transaction(async (trx) => {
    await trx('statistics_rollup').where('source', 'verifications').forUpdate().first('source');
    const rows = await takeUncounted(trx);
    const deltas = new Map<string, DailyAggregate>();
    const deltaFor = (websiteId: number, environment: Environment, day: string): DailyAggregate => {
      const key = `${websiteId}|${environment}|${day}`;
      let delta = deltas.get(key);
      if (!delta) deltas.set(key, (delta = empty(websiteId, environment, day)));
      return delta;
    };
    for (const row of rows) {
      const verifiedAt = new Date(row.verified_at);
      const delta = deltaFor(Number(row.website_id), row.environment, verifiedAt.toISOString().slice(0, 10));
      const outcome = row.reused ? 'reused' : 'passed';
      delta[outcome] += 1;
      challengeOf(delta, row.method)[outcome] += 1;
      add(delta.byCountry, row.country);
      add(delta.byLevel, row.assurance_level);
      if (row.started_at)
        add(
          delta.secondsToResult,
          String(Math.max(0, Math.round((verifiedAt.getTime() - new Date(row.started_at).getTime()) / 1000))),
        );
    }
    for (const day of tallied) {
      const delta = deltaFor(day.websiteId, day.environment, day.day);
      delta.started += day.started;
      delta.refused += day.refused;
      delta.abandoned += day.abandoned;
      for (const [challenge, count] of Object.entries(day.refusedBy)) challengeOf(delta, challenge).refused += count;
    }
    if (deltas.size > 0) await mergeInto(trx, [...deltas.values()]);
    report(rows, tallied, counted);
    return rows.length;
  });
}

async function mergeInto(trx: Database, deltas: DailyAggregate[]): Promise<void> {
  const existing = await trx('statistics_daily')
    .whereIn(
      ['website_id', 'environment', 'day'],
      deltas.map((delta) => [delta.websiteId, delta.environment, delta.day]),
    )
    .forUpdate()
    .select<AggregateRow[]>([...COLUMNS.filter((column) => column !== 'day'), trx.raw('day::text AS day')]);
  const stored = new Map(
    existing.map((row) => [`${Number(row.website_id)}|${row.environment}|${row.day}`, fromRow(row)]),
  );
  const merged = deltas.map((delta) => {
    const total =
      stored.get(`${delta.websiteId}|${delta.environment}|${delta.day}`) ??
      empty(delta.websiteId, delta.environment, delta.day);
    for (const field of ['started', 'passed', 'refused', 'abandoned', 'reused'] as const) total[field] += delta[field];
    for (const [challenge, counts] of Object.entries(delta.byChallenge)) {
      const into = challengeOf(total, challenge);
      for (const outcome of ['passed', 'refused', 'reused'] as const) into[outcome] += counts[outcome];
    }
    for (const [country, count] of Object.entries(delta.byCountry)) add(total.byCountry, country, count);
    for (const [level, count] of Object.entries(delta.byLevel)) add(total.byLevel, level, count);
    for (const [seconds, count] of Object.entries(delta.secondsToResult)) add(total.secondsToResult, seconds, count);
    return total;
  });
  await trx('statistics_daily')
    .insert(
      merged.map((total) => ({
        website_id: total.websiteId,
        environment: total.environment,
        day: total.day,
        started: total.started,
        passed: total.passed,
        refused: total.refused,
        abandoned: total.abandoned,
        reused: total.reused,
        by_challenge: JSON.stringify(total.byChallenge),
        by_country: JSON.stringify(total.byCountry),
        by_level: JSON.stringify(total.byLevel),
        seconds_to_result: JSON.stringify(total.secondsToResult),
      })),
    )
    .onConflict(['website_id', 'environment', 'day'])
    .merge();
}

function report(rows: VerificationRow[], tallied: TalliedDay[], counted: Counted): void {
  for (const row of rows) counted(row.method, row.reused ? 'reused' : 'passed', row.environment, 1);
  for (const day of tallied) {
    for (const [challenge, count] of Object.entries(day.refusedBy))
      counted(challenge, 'refused', day.environment, count);
    if (day.abandoned > 0) counted('none', 'abandoned', day.environment, day.abandoned);
  }
}

/** A website's aggregates from `from` to `to` (inclusive, YYYY-MM-DD), by day then environment. */
export async function dailyAggregates(
  db: Database,
  websiteId: number,
  from: string,
  to: string,
): Promise<DailyAggregate[]> {
  const rows = await db('statistics_daily')
    .where('website_id', websiteId)
    .whereBetween('day', [from, to])
    .orderBy(['day', 'environment'])
    .select<AggregateRow[]>([...COLUMNS.filter((column) => column !== 'day'), db.raw('day::text AS day')]);
  return rows.map(fromRow);
}
