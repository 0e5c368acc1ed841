import type { AssuranceLevel } from '../../challenge.js';

export type AgeAnswer = 'over' | 'under' | 'unknown';

/** A configured claim path with `{threshold}` filled in, e.g. `age_over_{threshold}` → `age_over_18`. */
export const withThreshold = (template: string, threshold: number): string =>
  template.replaceAll('{threshold}', String(threshold));

/**
 * The value at `path` in a claims set: the whole path as one claim name first (names such as
 * `https://example.com/age` hold dots), else dot-separated steps into nested objects.
 */
export function readClaim(claims: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(claims, path)) return claims[path];
  let current: unknown = claims;
  for (const step of path.split('.')) {
    if (typeof current !== 'object' || current === null || Array.isArray(current) || !Object.hasOwn(current, step))
      return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}

/** Age in whole years on `today` (UTC) of someone born on year-month-day. */
function ageOn(today: Date, year: number, month: number, day: number): number {
  const birthdayPassed =
    today.getUTCMonth() + 1 > month || (today.getUTCMonth() + 1 === month && today.getUTCDate() >= day);
  return today.getUTCFullYear() - year - (birthdayPassed ? 0 : 1);
}

const BIRTHDATE = /^(\d{4})(?:-(\d{2})-(\d{2}))?(?:T.*)?$/;
const AGE_RANGE = /^(\d{1,3})\s*(?:-\s*(\d{1,3})|\+)$/;

/**
 * Whether a claim value says the visitor is at least `threshold` years old. Understood forms:
 * a boolean (the provider's own "over the threshold" answer, also as "true"/"false"), an age in years,
 * a birthdate (`YYYY-MM-DD`, a date-time, or a bare year, counted as the year's last day),
 * an age range (`18-20`, `21+`: its lower bound must reach the threshold), and an object keyed by
 * threshold (`{"18": true}`, as AgeKey answers). Anything else is unknown, never a pass.
 */
export function judgeAge(value: unknown, threshold: number, today: Date): AgeAnswer {
  if (typeof value === 'boolean') return value ? 'over' : 'under';
  if (typeof value === 'number')
    return Number.isFinite(value) && value >= 0 ? (value >= threshold ? 'over' : 'under') : 'unknown';
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const answer = (value as Record<string, unknown>)[String(threshold)];
    return typeof answer === 'boolean' ? judgeAge(answer, threshold, today) : 'unknown';
  }
  if (typeof value !== 'string') return 'unknown';
  const text = value.trim();
  if (text === 'true' || text === 'false') return text === 'true' ? 'over' : 'under';
  const birthdate = BIRTHDATE.exec(text);
  if (birthdate) {
    const [, year, month, day] = birthdate;
    // "0000" is OpenID Connect's "year withheld": it proves nothing about age.
    if (Number(year) === 0) return 'unknown';
    const [m, d] = [month ? Number(month) : 12, day ? Number(day) : 31];
    if (m < 1 || m > 12 || d < 1 || d > 31) return 'unknown';
    return ageOn(today, Number(year), m, d) >= threshold ? 'over' : 'under';
  }
  const range = AGE_RANGE.exec(text);
  if (range) {
    const [, low, high] = range;
    if (Number(low) >= threshold) return 'over';
    return high !== undefined && Number(high) < threshold ? 'under' : 'unknown';
  }
  return 'unknown';
}

/** The level the provider's claim maps to, or undefined when it is absent or not in the operator's map. */
export function mapLevel(value: unknown, levelMap: Record<string, AssuranceLevel>): AssuranceLevel | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  return Object.hasOwn(levelMap, String(value)) ? levelMap[String(value)] : undefined;
}
