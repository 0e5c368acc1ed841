import type { Translate } from '../i18n/catalogue.js';
import type { Language } from '../i18n/languages.js';
import { funnelView, placesView, type FunnelView, type PlacesView } from './statistics-breakdown.js';
import type { StatisticsDay } from '../statistics/statistics.js';
import { ENVIRONMENTS, type Environment } from '../websites/index.js';

/** The days the Overview shows. */
export const OVERVIEW_DAYS = 30;

/** The outcomes a day's bar stacks, bottom up, each with a fill that differs by pattern, not only by colour. */
const OUTCOMES = ['passed', 'reused', 'refused', 'abandoned'] as const;
type Outcome = (typeof OUTCOMES)[number];

const PATTERNS: Record<Outcome, string> = {
  passed:
    '<pattern id="fill-passed" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#1b6e3a"/></pattern>',
  reused:
    '<pattern id="fill-reused" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#ffffff"/><path d="M0 6L6 0" stroke="#1b6e3a" stroke-width="2"/></pattern>',
  refused:
    '<pattern id="fill-refused" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#ffffff"/><path d="M0 0L6 6M6 0L0 6" stroke="#a4262c" stroke-width="1.5"/></pattern>',
  abandoned:
    '<pattern id="fill-abandoned" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#ffffff"/><circle cx="3" cy="3" r="1.5" fill="#505a5f"/></pattern>',
};

const escapeXml = (value: string): string =>
  value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** The last `count` days up to `today` (YYYY-MM-DD, UTC), oldest first. */
export function lastDays(today: string, count = OVERVIEW_DAYS): string[] {
  const end = Date.parse(`${today}T00:00:00Z`);
  return Array.from({ length: count }, (_, index) =>
    new Date(end - (count - 1 - index) * 86_400_000).toISOString().slice(0, 10),
  );
}

/** Every day from `from` to `to` (YYYY-MM-DD, UTC, a range the statistics accepted), oldest first. */
export function daysBetween(from: string, to: string): string[] {
  return lastDays(to, Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1);
}

/** One environment's chart: a stacked bar per day, an outlined square per outcome in the legend, a title per bar. */
function chartOf(environment: Environment, days: string[], byDay: Map<string, StatisticsDay>, t: Translate): string {
  const width = 480;
  const height = 180;
  const left = 40;
  const bottom = 26;
  const top = 8;
  const plot = height - bottom - top;
  const slot = (width - left - 4) / days.length;
  const totals = days.map((day) => OUTCOMES.reduce((sum, outcome) => sum + (byDay.get(day)?.[outcome] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const scale = plot / max;
  const bars = days
    .map((day, index) => {
      const counts = byDay.get(day);
      let y = top + plot;
      const x = left + index * slot + 1;
      const segments = OUTCOMES.map((outcome) => {
        const value = counts?.[outcome] ?? 0;
        if (value === 0) return '';
        const h = value * scale;
        y -= h;
        return `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${(slot - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="url(#fill-${outcome})" stroke="#0b0c0c" stroke-width=".5"/>`;
      }).join('');
      const summary = OUTCOMES.map(
        (outcome) => `${t(`platform.statistics.${outcome}`)} ${counts?.[outcome] ?? 0}`,
      ).join(', ');
      return `<g><title>${escapeXml(`${day}: ${summary}`)}</title>${segments}</g>`;
    })
    .join('');
  // Every seventh day, counted back from today, so the newest day is always named: ending at the chart's right edge,
  // as centring it under the last bar would cut it off.
  const labels = days
    .map((day, index) => {
      if ((days.length - 1 - index) % 7 !== 0) return '';
      const [x, anchor] = index === days.length - 1 ? [width - 4, 'end'] : [left + index * slot + slot / 2, 'middle'];
      return `<text x="${x.toFixed(1)}" y="${height - 4}" text-anchor="${anchor}" font-size="13">${day.slice(5)}</text>`;
    })
    .join('');
  const axis =
    `<line x1="${left}" y1="${top + plot}" x2="${width - 4}" y2="${top + plot}" stroke="#0b0c0c"/>` +
    `<text x="${left - 6}" y="${top + 10}" text-anchor="end" font-size="13">${max}</text>` +
    `<text x="${left - 6}" y="${top + plot}" text-anchor="end" font-size="13">0</text>`;
  // The period's own dates: "the last N days" was wrong for a past period.
  const title = t('platform.statistics.chartTitle', { environment, from: days[0] ?? '', to: days.at(-1) ?? '' });
  const id = `chart-${environment.toLowerCase()}`;
  return (
    `<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}-title" xmlns="http://www.w3.org/2000/svg">` +
    `<title id="${id}-title">${escapeXml(title)}</title>` +
    `<defs>${OUTCOMES.map((outcome) => PATTERNS[outcome]).join('')}</defs>${axis}${bars}${labels}</svg>`
  );
}

/** The legend's swatches: the same fills as the bars, each named. */
export const legend = (t: Translate): Array<{ outcome: Outcome; swatch: string; label: string }> =>
  OUTCOMES.map((outcome) => ({
    outcome,
    label: t(`platform.statistics.${outcome}`),
    swatch: `<svg class="swatch" viewBox="0 0 14 14" width="14" height="14" aria-hidden="true" xmlns="http://www.w3.org/2000/svg"><defs>${PATTERNS[outcome]}</defs><rect x=".5" y=".5" width="13" height="13" fill="url(#fill-${outcome})" stroke="#0b0c0c"/></svg>`,
  }));

/** Per challenge over the days shown: the counts of each outcome. */
interface SplitRow {
  challenge: string;
  passed: number;
  refused: number;
  reused: number;
}

export interface OverviewStatistics {
  /** per environment with any activity in the period: its chart (SVG markup), its totals and its split by challenge */
  environments: Array<{
    environment: Environment;
    chart: string;
    totals: Record<'started' | Outcome, number>;
    split: SplitRow[];
    funnel: FunnelView;
    places: PlacesView;
  }>;
}

/** One environment's days summed per challenge, by challenge name. */
function splitOf(days: StatisticsDay[]): SplitRow[] {
  const split = new Map<string, SplitRow>();
  for (const day of days) {
    for (const [challenge, counts] of Object.entries(day.byChallenge)) {
      const row = split.get(challenge) ?? { challenge, passed: 0, refused: 0, reused: 0 };
      row.passed += counts.passed;
      row.refused += counts.refused;
      row.reused += counts.reused;
      split.set(challenge, row);
    }
  }
  return [...split.values()].sort((a, b) => a.challenge.localeCompare(b.challenge));
}

/**
 * The Overview's statistics: per environment, a chart of the days shown, the split by challenge and outcome, the
 * funnel by step and the verifications by country and subdivision.
 */
export function overviewStatistics(
  days: StatisticsDay[],
  shown: string[],
  language: Language,
  t: Translate,
): OverviewStatistics {
  return {
    environments: ENVIRONMENTS.flatMap((environment) => {
      const ofEnvironment = days.filter((day) => day.environment === environment);
      if (ofEnvironment.length === 0) return [];
      const byDay = new Map(ofEnvironment.map((day) => [day.date, day]));
      const totals = { started: 0, passed: 0, reused: 0, refused: 0, abandoned: 0 };
      for (const day of ofEnvironment)
        for (const key of Object.keys(totals) as Array<keyof typeof totals>) totals[key] += day[key];
      return [
        {
          environment,
          chart: chartOf(environment, shown, byDay, t),
          totals,
          split: splitOf(ofEnvironment),
          funnel: funnelView(ofEnvironment, environment, t),
          places: placesView(ofEnvironment, environment, language, t),
        },
      ];
    }),
  };
}

/** A CSV cell: quoted when it holds a comma, a quote or a line break. */
export const csvCell = (value: string | number | null): string => {
  const text = value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** The funnel's steps after `started` (already a column), as CSV columns. */
const FUNNEL_COLUMNS = [
  ['promptAccepted', 'funnel_prompt_accepted'],
  ['challengeChosen', 'funnel_challenge_chosen'],
  ['passed', 'funnel_passed'],
  ['refused', 'funnel_refused'],
  ['returned', 'funnel_returned'],
] as const;

/**
 * The days as CSV, one line per day and environment: the counts, the funnel's steps, then the challenges', the
 * countries' and the subdivisions' counts in columns of their own.
 */
export function statisticsCsv(days: StatisticsDay[]): string {
  const challenges = [...new Set(days.flatMap((day) => Object.keys(day.byChallenge)))].sort();
  const countries = [...new Set(days.flatMap((day) => Object.keys(day.byCountry)))].sort();
  const subdivisions = [...new Set(days.flatMap((day) => Object.keys(day.bySubdivision)))].sort();
  const header = [
    'date',
    'environment',
    'started',
    'passed',
    'refused',
    'abandoned',
    'reused',
    'median_seconds_to_result',
    ...FUNNEL_COLUMNS.map(([, column]) => column),
    ...challenges.flatMap((challenge) => ['passed', 'refused', 'reused'].map((outcome) => `${challenge}_${outcome}`)),
    ...countries.map((country) => `country_${country}`),
    ...subdivisions.map((subdivision) => `subdivision_${subdivision}`),
  ];
  const lines = days.map((day) => [
    day.date,
    day.environment,
    day.started,
    day.passed,
    day.refused,
    day.abandoned,
    day.reused,
    day.medianSecondsToResult,
    ...FUNNEL_COLUMNS.map(([step]) => day.funnel[step]),
    ...challenges.flatMap((challenge) => {
      const counts = day.byChallenge[challenge];
      return [counts?.passed ?? 0, counts?.refused ?? 0, counts?.reused ?? 0];
    }),
    ...countries.map((country) => day.byCountry[country] ?? 0),
    ...subdivisions.map((subdivision) => day.bySubdivision[subdivision] ?? 0),
  ]);
  return [header, ...lines].map((line) => line.map(csvCell).join(',')).join('\r\n') + '\r\n';
}
