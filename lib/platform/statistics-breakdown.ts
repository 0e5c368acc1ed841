import { placeNames } from '../geo/display-names.js';
import type { Translate } from '../i18n/catalogue.js';
import type { Language } from '../i18n/languages.js';
import type { Funnel, StatisticsDay } from '../statistics/statistics.js';

/** The funnel's steps in the order a flow goes through them (docs/statistics.md "The funnel"). */
const STEPS = ['started', 'promptAccepted', 'challengeChosen', 'passed', 'refused', 'returned'] as const;
type Step = (typeof STEPS)[number];

/** The countries the chart names, the largest first; the table lists every one. */
const CHARTED_COUNTRIES = 10;

const escapeXml = (value: string): string =>
  value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/**
 * Horizontal bars, one per row, each named above its bar (a long country name keeps its line at any width) with its
 * value after the bar; the SVG's title says what it shows, and the page's table beside it is the exact alternative.
 */
function horizontalBars(
  id: string,
  title: string,
  rows: Array<{ label: string; value: number; text: string }>,
): string {
  const width = 480;
  // Room for the label's line at the larger type of a phone (platform.css), where the chart is drawn smaller.
  const row = 48;
  // Room after the longest bar for its value, at the larger type of a phone (platform.css).
  const barWidth = 300;
  const max = Math.max(1, ...rows.map((entry) => entry.value));
  const bars = rows
    .map((entry, index) => {
      const y = index * row;
      const length = (entry.value / max) * barWidth;
      return (
        `<g><text x="0" y="${y + 20}" font-size="13">${escapeXml(entry.label)}</text>` +
        `<rect x="0" y="${y + 27}" width="${Math.max(length, 1).toFixed(1)}" height="14" fill="#1d70b8" stroke="#0b0c0c" stroke-width=".5"/>` +
        `<text x="${(Math.max(length, 1) + 6).toFixed(1)}" y="${y + 41}" font-size="13">${escapeXml(entry.text)}</text></g>`
      );
    })
    .join('');
  return (
    `<svg class="chart" viewBox="0 0 ${width} ${Math.max(rows.length, 1) * row}" role="img" aria-labelledby="${id}-title" xmlns="http://www.w3.org/2000/svg">` +
    `<title id="${id}-title">${escapeXml(title)}</title>${bars}</svg>`
  );
}

/** A share of the flows started, in whole percent; null when none started (the TEST shortcut may pass without). */
const shareOf = (count: number, started: number): number | null =>
  started === 0 ? null : Math.round((count / started) * 100);

export interface FunnelView {
  chart: string;
  steps: Array<{ step: Step; label: string; count: number; share: number | null }>;
}

/** One environment's funnel over the days shown: each step's flows, and their share of the flows started. */
export function funnelView(days: StatisticsDay[], environment: string, t: Translate): FunnelView {
  const totals: Funnel = { started: 0, promptAccepted: 0, challengeChosen: 0, passed: 0, refused: 0, returned: 0 };
  for (const day of days) for (const step of STEPS) totals[step] += day.funnel[step];
  const steps = STEPS.map((step) => ({
    step,
    label: t(`platform.statistics.funnel.${step}`),
    count: totals[step],
    share: shareOf(totals[step], totals.started),
  }));
  const chart = horizontalBars(
    `funnel-${environment.toLowerCase()}`,
    t('platform.statistics.funnel.chartTitle', { environment }),
    steps.map(({ label, count, share }) => ({
      label,
      value: count,
      text: share === null ? `${count}` : `${count} (${share} %)`,
    })),
  );
  return { chart, steps };
}

interface PlaceRow {
  code: string;
  /** in the page's language; null for `ZZ`, a location we could not tell (the page says so in words) */
  name: string | null;
  count: number;
}

export interface PlacesView {
  /** null without verifications: no chart of nothing */
  chart: string | null;
  /** every country, the most verifications first, each with its subdivisions where they were known */
  countries: Array<PlaceRow & { subdivisions: PlaceRow[] }>;
}

const byCount = (a: PlaceRow, b: PlaceRow): number => b.count - a.count || a.code.localeCompare(b.code);

/** One environment's verifications by country and subdivision over the days shown, named in `language`. */
export function placesView(days: StatisticsDay[], environment: string, language: Language, t: Translate): PlacesView {
  const countries = new Map<string, number>();
  const subdivisions = new Map<string, number>();
  for (const day of days) {
    for (const [code, count] of Object.entries(day.byCountry)) countries.set(code, (countries.get(code) ?? 0) + count);
    for (const [code, count] of Object.entries(day.bySubdivision))
      subdivisions.set(code, (subdivisions.get(code) ?? 0) + count);
  }
  const rows = [...countries]
    .map(([code, count]) => ({
      code,
      name: placeNames(code, null, language).country,
      count,
      subdivisions: [...subdivisions]
        .filter(([subdivision]) => subdivision.startsWith(`${code}-`))
        .map(([subdivision, inside]) => {
          // Outside the US we have no names of subdivisions: the code alone, not twice.
          const name = placeNames(code, subdivision, language).subdivision;
          return { code: subdivision, name: name === subdivision ? null : name, count: inside };
        })
        .sort(byCount),
    }))
    .sort(byCount);
  if (rows.length === 0) return { chart: null, countries: [] };
  const charted = rows.slice(0, CHARTED_COUNTRIES);
  const chart = horizontalBars(
    `places-${environment.toLowerCase()}`,
    t('platform.statistics.places.chartTitle', { environment, count: charted.length }),
    charted.map((row) => ({
      label: row.name ?? t('platform.statistics.places.unknown'),
      value: row.count,
      text: String(row.count),
    })),
  );
  return { chart, countries: rows };
}
