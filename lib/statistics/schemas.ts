import { periodQuerySchema } from './days.js';

/** The longest range one request may ask for, in days. */
export const STATISTICS_MAX_DAYS = 366;

/** Query of GET /external/website/{website_id}/statistics (query values arrive as text). */
export const statisticsQuerySchema = periodQuerySchema('StatisticsQuery', STATISTICS_MAX_DAYS);

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
          'bySubdivision',
          'funnel',
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
          bySubdivision: {
            type: 'object',
            additionalProperties: counts,
            description:
              'Verifications (passed and reused) per ISO 3166-2 subdivision ("US-TX"), where the visitor\'s was known.',
          },
          funnel: {
            type: 'object',
            additionalProperties: false,
            required: ['started', 'promptAccepted', 'challengeChosen', 'passed', 'refused', 'returned'],
            description:
              'The flows of the day step by step, each counted once per flow on the day the step happened: a flow refused then passed is in both passed and refused.',
            properties: {
              started: { ...counts, description: 'Flows that reached the verification pages (as started).' },
              promptAccepted: { ...counts, description: 'Flows whose visitor accepted the authorization prompt.' },
              challengeChosen: {
                ...counts,
                description: 'Flows in which a check began: a challenge, or an earlier result the visitor took up.',
              },
              passed: { ...counts, description: 'Flows that recorded a verification (passed plus reused).' },
              refused: { ...counts, description: 'Flows in which a check refused the visitor at least once.' },
              returned: { ...counts, description: 'Flows that returned to the website with a verification.' },
            },
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
