import type { Database } from '../store/database.js';
import type { AssuranceLevel, Environment } from '../verification/challenge.js';
import { TALLIED, type TalliedDay } from './tally.js';

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
  /** flows whose visitor accepted the prompt */
  accepted: number;
  /** flows in which a check began: a challenge, or an earlier result taken up */
  chosen: number;
  /** flows refused at least once (`refused` counts each check) */
  refusedFlows: number;
  /** flows that returned to the website with a verification */
  returned: number;
  byChallenge: Record<string, ChallengeCounts>;
  byCountry: Record<string, number>;
  /** verifications (passed and reused) per assurance level */
  byLevel: Record<string, number>;
  /** verifications per ISO 3166-2 subdivision, where the visitor's was known */
  bySubdivision: Record<string, number>;
  /** how many results took each number of seconds from the flow's start */
  secondsToResult: Record<string, number>;
}

/** The aggregate's whole-number counts, as stored (column) and as read (field). */
const COUNTS = [
  ['started', 'started'],
  ['passed', 'passed'],
  ['refused', 'refused'],
  ['abandoned', 'abandoned'],
  ['reused', 'reused'],
  ['accepted', 'accepted'],
  ['chosen', 'chosen'],
  ['refusedFlows', 'refused_flows'],
  ['returned', 'returned'],
] as const;
type Count = (typeof COUNTS)[number][0];

type AggregateRow = Record<(typeof COUNTS)[number][1], number> & {
  website_id: number;
  environment: Environment;
  day: string;
  by_challenge: Record<string, ChallengeCounts>;
  by_country: Record<string, number>;
  by_level: Record<string, number>;
  by_subdivision: Record<string, number>;
  seconds_to_result: Record<string, number>;
};

interface VerificationRow {
  id: number;
  website_id: number;
  environment: Environment;
  method: string;
  country: string;
  assurance_level: AssuranceLevel;
  country_subdivision: string | null;
  reused: boolean;
  verified_at: Date;
  started_at: Date | null;
}

/** Verifications counted per statement: a backlog is worked off in short transactions. */
const BATCH = 5000;

/** The columns read back, `day` as text (see the selects). */
const COLUMNS = [
  'website_id',
  'environment',
  ...COUNTS.map(([, column]) => column),
  'by_challenge',
  'by_country',
  'by_level',
  'by_subdivision',
  'seconds_to_result',
];

const countsOf = <From extends string, To extends string>(
  pairs: ReadonlyArray<readonly [From, To]>,
  source: Record<From, number>,
): Record<To, number> => Object.fromEntries(pairs.map(([from, to]) => [to, source[from]])) as Record<To, number>;

const fromRow = (row: AggregateRow): DailyAggregate => ({
  websiteId: Number(row.website_id),
  environment: row.environment,
  day: row.day,
  ...countsOf(
    COUNTS.map(([field, column]) => [column, field] as const),
    row,
  ),
  byChallenge: row.by_challenge,
  byCountry: row.by_country,
  byLevel: row.by_level,
  bySubdivision: row.by_subdivision,
  secondsToResult: row.seconds_to_result,
});

const empty = (websiteId: number, environment: Environment, day: string): DailyAggregate => ({
  websiteId,
  environment,
  day,
  ...(Object.fromEntries(COUNTS.map(([field]) => [field, 0])) as Record<Count, number>),
  byChallenge: {},
  byCountry: {},
  byLevel: {},
  bySubdivision: {},
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
               verification.country_subdivision, verification.assurance_level, verification.reused, verification.verified_at, verification.started_at`,
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
      if (row.country_subdivision) add(delta.bySubdivision, row.country_subdivision);
      if (row.started_at)
        add(
          delta.secondsToResult,
          String(Math.max(0, Math.round((verifiedAt.getTime() - new Date(row.started_at).getTime()) / 1000))),
        );
    }
    for (const day of tallied) {
      const delta = deltaFor(day.websiteId, day.environment, day.day);
      for (const count of TALLIED) delta[count] += day[count];
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
    .select<AggregateRow[]>([...COLUMNS, trx.raw('day::text AS day')]);
  const stored = new Map(
    existing.map((row) => [`${Number(row.website_id)}|${row.environment}|${row.day}`, fromRow(row)]),
  );
  const merged = deltas.map((delta) => {
    const total =
      stored.get(`${delta.websiteId}|${delta.environment}|${delta.day}`) ??
      empty(delta.websiteId, delta.environment, delta.day);
    for (const [field] of COUNTS) total[field] += delta[field];
    for (const [challenge, counts] of Object.entries(delta.byChallenge)) {
      const into = challengeOf(total, challenge);
      for (const outcome of ['passed', 'refused', 'reused'] as const) into[outcome] += counts[outcome];
    }
    for (const [country, count] of Object.entries(delta.byCountry)) add(total.byCountry, country, count);
    for (const [level, count] of Object.entries(delta.byLevel)) add(total.byLevel, level, count);
    for (const [code, count] of Object.entries(delta.bySubdivision)) add(total.bySubdivision, code, count);
    for (const [seconds, count] of Object.entries(delta.secondsToResult)) add(total.secondsToResult, seconds, count);
    return total;
  });
  await trx('statistics_daily')
    .insert(
      merged.map((total) => ({
        website_id: total.websiteId,
        environment: total.environment,
        day: total.day,
        ...countsOf(COUNTS, total),
        by_challenge: JSON.stringify(total.byChallenge),
        by_country: JSON.stringify(total.byCountry),
        by_level: JSON.stringify(total.byLevel),
        by_subdivision: JSON.stringify(total.bySubdivision),
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
    .select<AggregateRow[]>([...COLUMNS, db.raw('day::text AS day')]);
  return rows.map(fromRow);
}
