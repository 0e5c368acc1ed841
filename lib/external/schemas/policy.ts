import { policyRuleSchema } from '../../policy/schema.js';
import { ASSURANCE_LEVELS, CHALLENGE_NAMES } from '../../verification/challenge.js';

// The website policy as the External API answers it (docs/policies.md), published in openapi.json.

const challengeName = { type: 'string', enum: [...CHALLENGE_NAMES] } as const;

const ruleOrigin = {
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'preset', 'version', 'rule'],
      properties: {
        kind: { const: 'preset' },
        preset: { type: 'string' },
        version: { type: 'string' },
        rule: { type: 'integer', minimum: 0 },
      },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'rule'],
      properties: { kind: { const: 'website' }, rule: { type: 'integer', minimum: 0 } },
    },
  ],
} as const;

const effectiveRuleSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'required',
    'ageThreshold',
    'challenges',
    'minimumAssuranceLevel',
    'estimationBuffer',
    'reuseMaxAgeSeconds',
    'requireDoubleAnonymity',
    'challengesUntil',
    'origins',
  ],
  properties: {
    required: { type: 'boolean' },
    ageThreshold: { type: 'integer' },
    challenges: {
      type: ['array', 'null'],
      items: challengeName,
      description: "null: no rule narrows the website's own challenges.",
    },
    minimumAssuranceLevel: { type: 'string', enum: [...ASSURANCE_LEVELS] },
    estimationBuffer: { type: 'integer' },
    reuseMaxAgeSeconds: { type: ['integer', 'null'], description: "null: no rule limits reuse beyond the operator's." },
    requireDoubleAnonymity: { type: 'boolean' },
    challengesUntil: { type: 'object', additionalProperties: { type: 'string' } },
    origins: {
      type: 'array',
      items: ruleOrigin,
      description: "The preset rules (with their versions) and the website's own rules that apply here.",
    },
  },
} as const;

export const websitePolicySchema = {
  title: 'WebsitePolicy',
  type: 'object',
  additionalProperties: false,
  required: ['rules', 'presets', 'effective'],
  properties: {
    rules: { type: 'array', items: policyRuleSchema, description: "The website's own rules." },
    presets: {
      type: 'array',
      description:
        'The presets the operator put in force for every website (GET /v1/policies has their rules and sources).',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'version', 'title'],
        properties: { id: { type: 'string' }, version: { type: 'string' }, title: { type: 'string' } },
      },
    },
    effective: {
      type: 'object',
      additionalProperties: effectiveRuleSchema,
      description: 'The rule in force in each region named anywhere ("*": wherever no region is known).',
    },
  },
} as const;
