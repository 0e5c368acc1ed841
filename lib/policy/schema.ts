import { ASSURANCE_LEVELS, CHALLENGE_NAMES } from '../verification/challenge.js';

// The one schema of a policy rule: the External API's body, the platform's editor and the shipped presets are all
// checked by it. Each `description` doubles as the 400 message when the field is invalid.

export const MAX_RULES = 50;
export const MAX_REGIONS_PER_RULE = 300;
/** The ages an operator may configure (AGE_THRESHOLD's range). */
export const MIN_AGE = 13;
export const MAX_AGE = 25;
export const MAX_ESTIMATION_BUFFER = 10;
export const MAX_REUSE_SECONDS = 31_536_000;

const challengeName = {
  type: 'string',
  enum: [...CHALLENGE_NAMES],
  description: `One of ${CHALLENGE_NAMES.join(', ')}.`,
} as const;

export const policyRuleSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['regions'],
  properties: {
    regions: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_REGIONS_PER_RULE,
      uniqueItems: true,
      items: {
        type: 'string',
        maxLength: 6,
        format: 'policy-region',
        description:
          'An ISO 3166-1 alpha-2 country ("FR"), an ISO 3166-2 subdivision ("US-TX") or "*" (everywhere), in upper case.',
      },
      description: `1 to ${MAX_REGIONS_PER_RULE} unique regions: ISO 3166-1 alpha-2 countries ("FR"), ISO 3166-2 subdivisions ("US-TX") or "*".`,
    },
    required: { type: 'boolean', description: 'true: verification is required in these regions.' },
    ageThreshold: {
      type: 'integer',
      minimum: MIN_AGE,
      maximum: MAX_AGE,
      description: `The age to prove: an integer from ${MIN_AGE} to ${MAX_AGE}.`,
    },
    challenges: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: challengeName,
      description: `The only challenges allowed: at least one, without repetition, of ${CHALLENGE_NAMES.join(', ')}.`,
    },
    minimumAssuranceLevel: {
      type: 'string',
      enum: [...ASSURANCE_LEVELS],
      description: `One of ${ASSURANCE_LEVELS.join(', ')}.`,
    },
    estimationBuffer: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_ESTIMATION_BUFFER,
      description: `Years (0 to ${MAX_ESTIMATION_BUFFER}) an estimated age must exceed the threshold by.`,
    },
    reuseMaxAgeSeconds: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_REUSE_SECONDS,
      description: `How old, in seconds (0 to ${MAX_REUSE_SECONDS}), a reused result may be; 0 means a new check at each access.`,
    },
    requireDoubleAnonymity: { type: 'boolean', description: 'true: a double-anonymity method must be offered, first.' },
    challengesUntil: {
      type: 'object',
      maxProperties: CHALLENGE_NAMES.length,
      propertyNames: challengeName,
      additionalProperties: {
        type: 'string',
        format: 'calendar-date',
        description: 'A date, YYYY-MM-DD: the last day the challenge is allowed.',
      },
      description: 'Challenge name → the last day (YYYY-MM-DD, UTC) it is allowed.',
    },
  },
} as const;

/** Body of PUT /external/website/{website_id}/policy: the website's own rules, replacing the ones it had. */
export const policyUpdateSchema = {
  title: 'WebsitePolicyUpdate',
  type: 'object',
  additionalProperties: false,
  required: ['rules'],
  properties: {
    rules: { type: 'array', maxItems: MAX_RULES, items: policyRuleSchema, description: `At most ${MAX_RULES} rules.` },
  },
} as const;
