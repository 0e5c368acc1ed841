import { SUBSCRIBABLE_EVENTS, WEBHOOK_EVENTS } from './events.js';
import { MAX_SECRET_OVERLAP_HOURS } from './settings.js';

export const WEBHOOK_URL_MAX_LENGTH = 2000;
/** Endpoints per website: enough for staging and production receivers, bounded so one website cannot fan out without end. */
export const WEBHOOKS_PER_WEBSITE = 10;

/** Body of POST /external/website/{website_id}/webhooks. */
export const webhookCreateSchema = {
  title: 'WebhookCreate',
  type: 'object',
  additionalProperties: false,
  required: ['url', 'events'],
  properties: {
    url: {
      type: 'string',
      minLength: 1,
      maxLength: WEBHOOK_URL_MAX_LENGTH,
      description: `An absolute https URL of at most ${WEBHOOK_URL_MAX_LENGTH} characters, without user name, password or fragment, that is not a private, loopback or link-local address.`,
      examples: ['https://example.com/age-provider/webhooks'],
    },
    events: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: {
        type: 'string',
        enum: [...SUBSCRIBABLE_EVENTS],
        description: `One of ${SUBSCRIBABLE_EVENTS.join(', ')}.`,
      },
      description: `At least one, without repetition, of ${SUBSCRIBABLE_EVENTS.join(', ')}.`,
    },
  },
} as const;

const webhookProperties = {
  id: { type: 'integer', minimum: 1 },
  url: { type: 'string' },
  events: { type: 'array', items: { type: 'string', enum: [...WEBHOOK_EVENTS] } },
  createdAt: { type: 'string' },
  disabledAt: {
    type: ['string', 'null'],
    description:
      'Set when the endpoint was disabled (its receiver answered 410 Gone, or it failed for WEBHOOK_DISABLE_AFTER_HOURS): nothing is sent any more.',
  },
  previousSecretExpiresAt: {
    type: ['string', 'null'],
    description:
      "While a rotation's overlap lasts, until when the secret it replaced still signs beside the current one; null otherwise.",
  },
} as const;

const WEBHOOK_REQUIRED = ['id', 'url', 'events', 'createdAt', 'disabledAt', 'previousSecretExpiresAt'] as const;

export const webhookSchema = {
  title: 'Webhook',
  type: 'object',
  additionalProperties: false,
  required: WEBHOOK_REQUIRED,
  properties: webhookProperties,
} as const;

const secretProperty = {
  type: 'string',
  pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
  description: 'The signing secret, shown in this answer only.',
} as const;

export const createdWebhookSchema = {
  title: 'CreatedWebhook',
  type: 'object',
  additionalProperties: false,
  required: [...WEBHOOK_REQUIRED, 'secret'],
  properties: { ...webhookProperties, secret: secretProperty },
} as const;

/** Body of POST /external/website/{website_id}/webhooks/{webhook_id}/rotate-secret (optional). */
export const webhookRotationSchema = {
  title: 'WebhookSecretRotation',
  type: 'object',
  additionalProperties: false,
  properties: {
    overlapHours: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_SECRET_OVERLAP_HOURS,
      description: `Hours, 0 to ${MAX_SECRET_OVERLAP_HOURS}, the replaced secret keeps signing beside the new one (0: it stops at once); WEBHOOK_SECRET_OVERLAP_HOURS (24 by default) when absent.`,
    },
  },
} as const;

export const rotatedWebhookSchema = {
  title: 'RotatedWebhook',
  type: 'object',
  additionalProperties: false,
  required: [...WEBHOOK_REQUIRED, 'secret'],
  properties: {
    ...webhookProperties,
    secret: { ...secretProperty, description: 'The new signing secret, shown in this answer only.' },
  },
} as const;

export const webhookListSchema = { title: 'WebhookList', type: 'array', items: webhookSchema } as const;

export const deliveryListSchema = {
  title: 'WebhookDeliveryList',
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['messageId', 'event', 'attempt', 'attemptedAt', 'status', 'durationMs', 'error', 'nextRetryAt'],
    properties: {
      messageId: { type: 'string', description: 'The webhook-id header: the same for every attempt at one message.' },
      event: { type: 'string', enum: [...WEBHOOK_EVENTS] },
      attempt: { type: 'integer', minimum: 1 },
      attemptedAt: { type: 'string' },
      status: { type: ['integer', 'null'], description: "The receiver's HTTP status; null when it did not answer." },
      durationMs: { type: 'integer', minimum: 0 },
      error: {
        type: ['string', 'null'],
        description: 'Why there is no status (refused address, timeout, connection error).',
      },
      nextRetryAt: {
        type: ['string', 'null'],
        description: 'When the message is tried again; null once delivered or given up.',
      },
    },
  },
} as const;

export const webhookTestSchema = {
  title: 'WebhookTestQueued',
  type: 'object',
  additionalProperties: false,
  required: ['queued'],
  properties: {
    queued: {
      type: 'boolean',
      const: true,
      description: 'A webhook.test message is in the outbox; see the deliveries.',
    },
  },
} as const;
