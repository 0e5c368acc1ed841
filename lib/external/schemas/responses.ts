import { LANGUAGE_CHOICES } from '../../i18n/languages.js';
import { WEBSITE_CHALLENGES } from '../../verification/challenge.js';
import { ENVIRONMENTS } from '../../websites/models.js';
import { OAUTH2_STATUSES } from '../../websites/schemas/fields.js';

// Response shapes, published in openapi.json and checked against real responses in the tests.

const environment = { type: 'string', enum: [...ENVIRONMENTS] } as const;

export const websiteKeySchema = {
  title: 'WebsiteKey',
  type: 'object',
  additionalProperties: false,
  required: ['environment', 'publicKey'],
  properties: {
    environment,
    publicKey: { type: 'string', pattern: '^pk_(live|test)_[A-Za-z0-9_-]+$' },
  },
} as const;

export const websiteSchema = {
  title: 'Website',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'domain', 'language', 'regions', 'challenges', 'keys'],
  properties: {
    id: { type: 'integer', minimum: 1 },
    name: { type: 'string' },
    domain: { type: 'string' },
    language: { type: 'string', enum: [...LANGUAGE_CHOICES] },
    regions: { type: 'array', items: { type: 'string' } },
    challenges: { type: 'array', items: { type: 'string', enum: [...WEBSITE_CHALLENGES] } },
    keys: { type: 'array', items: websiteKeySchema },
  },
} as const;

export const websiteListSchema = {
  title: 'WebsiteList',
  type: 'array',
  items: websiteSchema,
} as const;

export const oauth2ConfigurationSchema = {
  title: 'OAuth2Configuration',
  type: 'object',
  additionalProperties: false,
  required: ['environment', 'redirectUris', 'status'],
  properties: {
    environment,
    redirectUris: { type: 'array', items: { type: 'string' } },
    status: { type: 'string', enum: [...OAUTH2_STATUSES] },
    clientId: {
      type: 'string',
      pattern: '^(live|test)_[A-Za-z0-9_-]+$',
      description: 'Present only when status is ACTIVE.',
    },
    clientSecret: { type: 'string', description: 'Present only when status is ACTIVE.' },
  },
  // Credentials appear exactly when the configuration is ACTIVE.
  if: { properties: { status: { const: 'ACTIVE' } } },
  // oxlint-disable-next-line unicorn/no-thenable -- JSON Schema's if/then/else, not a promise
  then: { required: ['clientId', 'clientSecret'] },
  else: { not: { anyOf: [{ required: ['clientId'] }, { required: ['clientSecret'] }] } },
} as const;

export const errorSchema = {
  title: 'Error',
  type: 'object',
  additionalProperties: false,
  required: ['message', 'error', 'statusCode'],
  properties: {
    message: { type: 'string' },
    error: { type: 'string', description: 'The name of the HTTP status, e.g. "Bad Request".' },
    statusCode: { type: 'integer', minimum: 400, maximum: 599 },
  },
} as const;
