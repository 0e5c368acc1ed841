import { Refusal } from '../refusal.js';

/**
 * A day as every query accepts it (statistics, verifications, the evidence pack): YYYY-MM-DD from year 0001, the
 * first PostgreSQL holds (it has no year 0), to 9999.
 */
export const DAY_SCHEMA = { type: 'string', pattern: '^(?!0000)[0-9]{4}-[0-9]{2}-[0-9]{2}$' } as const;

/** The query of a route that covers a period of whole days, `from` and `to`, at most `maxDays` apart. */
export const periodQuerySchema = <Title extends string>(title: Title, maxDays: number) =>
  ({
    title,
    type: 'object',
    additionalProperties: false,
    required: ['from', 'to'],
    properties: {
      from: { ...DAY_SCHEMA, description: 'The first day (UTC), YYYY-MM-DD.' },
      to: {
        ...DAY_SCHEMA,
        description: `The last day (UTC), YYYY-MM-DD, not before from and at most ${maxDays} days after it.`,
      },
    },
  }) as const;

/** Whether `value` (matching DAY_SCHEMA) is a day of the calendar: 2026-02-30 is not. */
const isDay = (value: string): boolean =>
  !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);

/** Whether PostgreSQL can hold `instant`: years 0001 to 9999, as every day above (JavaScript also has a year 0). */
export const isStorableInstant = (instant: Date): boolean => {
  const year = instant.getUTCFullYear();
  return !Number.isNaN(year) && year >= 1 && year <= 9999;
};

/**
 * Refuses (`invalid`, 400) a day that is not one, and a range whose `to` is before `from` or that spans more than
 * `maxDays` days; returns the range's first instant and the instant after its last day.
 */
export function dayRange(from: string, to: string, maxDays = Infinity): { start: Date; end: Date } {
  if (!isDay(from) || !isDay(to))
    throw new Refusal('invalid', 'Invalid from or to: each must be a day of the calendar, YYYY-MM-DD.');
  const start = new Date(`${from}T00:00:00Z`);
  const last = new Date(`${to}T00:00:00Z`);
  const span = (last.getTime() - start.getTime()) / 86_400_000;
  if (span < 0) throw new Refusal('invalid', 'Invalid range: to must not be before from.');
  if (span >= maxDays) throw new Refusal('invalid', `Invalid range: at most ${maxDays} days at once.`);
  return { start, end: new Date(last.getTime() + 86_400_000) };
}
