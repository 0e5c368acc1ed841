import { dayRange } from './days.js';
import type { StatisticsServices } from './services.js';
import { validator } from '../websites/validation.js';
import { checkWebsiteId, websiteAccess } from '../websites/ownership.js';
import { STATISTICS_MAX_DAYS, statisticsQuerySchema } from './schemas.js';
import { dailyAggregates, type DailyAggregate } from './store.js';

/** A day's flows step by step (docs/statistics.md "The funnel"): each a count of flows, not of checks. */
export interface Funnel {
  started: number;
  promptAccepted: number;
  challengeChosen: number;
  passed: number;
  refused: number;
  returned: number;
}

/** One day of one environment, as the API, the Overview and the CSV show it. */
export type StatisticsDay = Pick<
  DailyAggregate,
  | 'environment'
  | 'started'
  | 'passed'
  | 'refused'
  | 'abandoned'
  | 'reused'
  | 'byChallenge'
  | 'byCountry'
  | 'bySubdivision'
> & {
  date: string;
  funnel: Funnel;
  medianSecondsToResult: number | null;
};

const validateQuery = validator<{ from: string; to: string }>(statisticsQuerySchema, 'query');

/** The median of a histogram (value → how many), the mean of the two middle values when their number is even. */
export function medianOf(histogram: Record<string, number>): number | null {
  const values = Object.entries(histogram)
    .map(([value, count]) => [Number(value), count] as const)
    .sort(([a], [b]) => a - b);
  const total = values.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return null;
  const at = (rank: number): number => {
    let seen = 0;
    for (const [value, count] of values) {
      seen += count;
      if (seen > rank) return value;
    }
    return values.at(-1)![0];
  };
  return (at(Math.floor((total - 1) / 2)) + at(Math.floor(total / 2))) / 2;
}

const dayOf = (aggregate: DailyAggregate): StatisticsDay => ({
  date: aggregate.day,
  environment: aggregate.environment,
  started: aggregate.started,
  passed: aggregate.passed,
  refused: aggregate.refused,
  abandoned: aggregate.abandoned,
  reused: aggregate.reused,
  byChallenge: aggregate.byChallenge,
  byCountry: aggregate.byCountry,
  bySubdivision: aggregate.bySubdivision,
  funnel: {
    started: aggregate.started,
    promptAccepted: aggregate.accepted,
    challengeChosen: aggregate.chosen,
    // A flow records one verification at most: fresh or reused, it passed.
    passed: aggregate.passed + aggregate.reused,
    refused: aggregate.refusedFlows,
    returned: aggregate.returned,
  },
  medianSecondsToResult: medianOf(aggregate.secondsToResult),
});

/** A website's statistics from `from` to `to` (inclusive), for its owner. */
export async function websiteStatistics(
  runtime: StatisticsServices,
  webmasterId: number,
  websiteId: number,
  query: unknown,
): Promise<{ days: StatisticsDay[] }> {
  const { from, to } = validateQuery(query);
  dayRange(from, to, STATISTICS_MAX_DAYS);
  checkWebsiteId(websiteId);
  await websiteAccess(runtime.db, webmasterId, websiteId);
  return { days: (await dailyAggregates(runtime.db, websiteId, from, to)).map(dayOf) };
}
