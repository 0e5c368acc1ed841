import { verificationIdParameter } from '../websites/schemas/path-parameters.js';
import { DAY_SCHEMA } from '../statistics/days.js';

/** Verifications per page of a website's list: the default, and the most one request may ask for. */
export const VERIFICATION_PAGE_DEFAULT = 50;
export const VERIFICATION_PAGE_MAX = 200;

/** Every way a flow can end, as the list names it (docs/verifications.md "Outcomes"). */
export const OUTCOMES = ['verified', 'refused', 'abandoned', 'unavailable', 'expired'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** A verification's id: the uid the website received from Resources (`test_…` in the sandbox, `vrf_…` live). */
export const VERIFICATION_ID_PATTERN = verificationIdParameter.pattern;

/** The filters of a website's list, shared by the API and the platform (query values arrive as text). */
export const verificationFilterProperties = {
  from: { ...DAY_SCHEMA, description: 'Only flows completed on or after this day (UTC), YYYY-MM-DD.' },
  to: { ...DAY_SCHEMA, description: 'Only flows completed on or before this day (UTC), YYYY-MM-DD.' },
  environment: { type: 'string', enum: ['LIVE', 'TEST'] },
  challenge: {
    type: 'string',
    pattern: '^[a-z][a-z0-9_]{0,39}$',
    description: 'The challenge passed or that refused (e.g. sandbox, ticket).',
  },
  outcome: { type: 'string', enum: [...OUTCOMES] },
  country: { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2.' },
} as const;

/** Query of GET /external/website/{website_id}/verifications. */
export const verificationQuerySchema = {
  title: 'VerificationQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    ...verificationFilterProperties,
    limit: {
      type: 'string',
      pattern: '^[1-9][0-9]{0,2}$',
      description: `Verifications per page, 1 to ${VERIFICATION_PAGE_MAX} (default ${VERIFICATION_PAGE_DEFAULT}).`,
    },
    cursor: {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]{1,200}$',
      description: 'The `next` of the previous page: continues with older flows.',
    },
  },
} as const;

const ruleOrigin = {
  type: 'object',
  required: ['kind', 'rule'],
  properties: {
    kind: { type: 'string', enum: ['preset', 'website'] },
    preset: { type: 'string', description: "The preset's id (kind preset)." },
    version: { type: 'string', description: "The preset's version (kind preset)." },
    rule: { type: 'integer', minimum: 0, description: "The rule's index in the preset or in the website's own rules." },
  },
} as const;

export const verificationSchema = {
  title: 'Verification',
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'environment',
    'clientId',
    'startedAt',
    'completedAt',
    'outcome',
    'challenge',
    'assuranceLevel',
    'ageThreshold',
    'country',
    'countrySubdivision',
    'reused',
    'returnedToWebsite',
    'rules',
  ],
  properties: {
    id: {
      type: 'string',
      description:
        'The uid the website received from Resources; for a flow without a verification, an id of the same form.',
    },
    environment: { type: 'string', enum: ['LIVE', 'TEST'] },
    clientId: {
      type: ['string', 'null'],
      description:
        "The OAuth2 client (or the checker script's client) the flow ran for; null for verifications recorded before this was kept.",
    },
    startedAt: { type: ['string', 'null'], description: 'When the website sent the visitor (ISO 8601).' },
    completedAt: {
      type: 'string',
      description: 'When the flow ended: the result recorded, the visitor left, or the flow expired (ISO 8601).',
    },
    outcome: { type: 'string', enum: [...OUTCOMES] },
    challenge: {
      type: ['string', 'null'],
      description: 'The challenge passed, or that refused; null when none ended the flow.',
    },
    assuranceLevel: { type: ['string', 'null'], enum: ['STANDARD', 'ENHANCED', 'STRICT', null] },
    ageThreshold: { type: ['integer', 'null'] },
    country: { type: ['string', 'null'], description: 'Where the visitor was verified (ISO 3166-1 alpha-2).' },
    countrySubdivision: { type: ['string', 'null'], description: 'ISO 3166-2, when known.' },
    reused: { type: 'boolean', description: 'Recorded from an earlier result the visitor reused.' },
    returnedToWebsite: {
      type: 'boolean',
      description:
        'The visitor went back to the website with the result (a code, or the error for a flow without a verification).',
    },
    rules: {
      type: 'array',
      items: ruleOrigin,
      description: "The policy rules that applied: presets with their versions, and the website's own.",
    },
  },
} as const;

export const verificationPageSchema = {
  title: 'VerificationPage',
  type: 'object',
  additionalProperties: false,
  required: ['verifications', 'next'],
  properties: {
    verifications: { type: 'array', items: verificationSchema, description: 'Newest first.' },
    next: { type: ['string', 'null'], description: 'Pass as `cursor` for the next (older) page; null on the last.' },
  },
} as const;
