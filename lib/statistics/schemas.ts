import { DAY_SCHEMA as DATE } from './days.js';

/** The longest range one request may ask for, in days. */
export const STATISTICS_MAX_DAYS = 366;

/** Query of GET /external/website/{website_id}/statistics (query values arrive as text). */
export const statisticsQuerySchema = {
  title: 'StatisticsQuery',
  type: 'object',
  additionalProperties: false,
  required: ['from', 'to'],
  properties: {
    from: { ...DATE, description: 'The first day (UTC), YYYY-MM-DD.' },
    to: {
      ...DATE,
      description: `The last day (UTC), YYYY-MM-DD, not before from and at most ${STATISTICS_MAX_DAYS} days after it.`,
    },
  },
} as const;

const counts = { type: 'integer', minimum: 0 } as const;

export const statisticsSchema = {
  title: 'Statistics',
  type: 'object',
  additionalProperties: false,
  required: ['days'],
  properties: {
    days: {
      type: 'array',
      description: 'The days with any activity, by date then environment (a day without activity is absent).',
      items: {
        type: 'object',
        additionalProperties: false,
        required: [
          'date',
          'environment',
          'started',
          'passed',
          'refused',
          'abandoned',
          'reused',
          'byChallenge',
          'byCountry',
          'medianSecondsToResult',
        ],
        properties: {
          date: { type: 'string', description: 'YYYY-MM-DD (UTC).' },
          environment: { type: 'string', enum: ['LIVE', 'TEST'] },
          started: { ...counts, description: 'Flows that reached the verification pages.' },
          passed: { ...counts, description: 'Verifications recorded after a check.' },
          refused: { ...counts, description: 'Checks that refused the visitor (who may then try another).' },
          abandoned: {
            ...counts,
            description: 'Flows ended without a result: declined, cancelled, or no check available.',
          },
          reused: { ...counts, description: 'Verifications recorded from an earlier result the visitor reused.' },
          byChallenge: {
            type: 'object',
            additionalProperties: {
              type: 'object',
              additionalProperties: false,
              required: ['passed', 'refused', 'reused'],
              properties: { passed: counts, refused: counts, reused: counts },
            },
          },
          byCountry: {
            type: 'object',
            additionalProperties: counts,
            description: 'Verifications (passed and reused) per country.',
          },
          medianSecondsToResult: {
            type: ['number', 'null'],
            description: 'From the website sending the visitor to the recorded result; null without results.',
          },
        },
      },
    },
  },
} as const;
