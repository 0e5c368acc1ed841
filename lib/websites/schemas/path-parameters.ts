/**
 * Path parameters as they arrive (strings). website_id has at most 15 digits, so it is always a safe integer;
 * environment is lower case in paths.
 */
/** A record id as text (a path, a query, a command line): a positive integer of at most 15 digits, a safe integer. */
export const ID_PATTERN = '^[1-9][0-9]{0,14}$';

export const websiteIdParameter = {
  type: 'string',
  pattern: ID_PATTERN,
  description: 'A positive integer, the id of one of your websites.',
} as const;

export const ENVIRONMENT_PATH_VALUES = ['live', 'test'] as const;

export const environmentParameter = {
  type: 'string',
  enum: [...ENVIRONMENT_PATH_VALUES],
  description: 'live or test, in lower case.',
} as const;

export const websitePathSchema = {
  title: 'WebsitePath',
  type: 'object',
  additionalProperties: false,
  required: ['website_id'],
  properties: { website_id: websiteIdParameter },
} as const;

export const environmentPathSchema = {
  title: 'WebsiteEnvironmentPath',
  type: 'object',
  additionalProperties: false,
  required: ['website_id', 'environment'],
  properties: { website_id: websiteIdParameter, environment: environmentParameter },
} as const;

export const webhookIdParameter = {
  type: 'string',
  pattern: ID_PATTERN,
  description: "A positive integer, the id of one of the website's webhooks.",
} as const;

export const webhookPathSchema = {
  title: 'WebhookPath',
  type: 'object',
  additionalProperties: false,
  required: ['website_id', 'webhook_id'],
  properties: { website_id: websiteIdParameter, webhook_id: webhookIdParameter },
} as const;

/** A webhook message's id in a path: the `webhook-id` header its receiver got (`msg_` and 32 hexadecimal digits). */
export const webhookMessageIdParameter = {
  type: 'string',
  pattern: '^msg_[0-9a-f]{32}$',
  description: 'The webhook-id header the receiver got: msg_ and 32 hexadecimal digits.',
} as const;

export const webhookMessagePathSchema = {
  title: 'WebhookMessagePath',
  type: 'object',
  additionalProperties: false,
  required: ['website_id', 'webhook_id', 'message_id'],
  properties: { website_id: websiteIdParameter, webhook_id: webhookIdParameter, message_id: webhookMessageIdParameter },
} as const;

/** A verification's id in a path: the uid the website received from Resources (lib/verification/listing-schemas.ts). */
export const verificationIdParameter = {
  type: 'string',
  pattern: '^(test|vrf)_[A-Za-z0-9_-]{1,64}$',
  description: 'The uid the website received from Resources (test_… in the sandbox, vrf_… live).',
} as const;

export const verificationPathSchema = {
  title: 'VerificationPath',
  type: 'object',
  additionalProperties: false,
  required: ['website_id', 'verification_id'],
  properties: { website_id: websiteIdParameter, verification_id: verificationIdParameter },
} as const;
