import { WEBHOOK_EVENTS } from './events.js';
import { RESPONSE_KEPT_BYTES } from './sender.js';

/** GET /external/website/{website_id}/webhooks/{webhook_id}/messages/{message_id}. */
export const webhookMessageSchema = {
  title: 'WebhookMessage',
  type: 'object',
  additionalProperties: false,
  required: ['messageId', 'event', 'createdAt', 'state', 'givenUpReason', 'attempts'],
  properties: {
    messageId: { type: 'string', description: 'The webhook-id header: the same at every attempt and redelivery.' },
    event: { type: 'string', enum: [...WEBHOOK_EVENTS] },
    createdAt: { type: 'string', description: 'When the event happened.' },
    state: {
      type: 'string',
      enum: ['pending', 'delivered', 'given_up'],
      description:
        'pending: waiting for an attempt or in one; delivered: its latest attempt got a 2xx; given_up: no attempt left.',
    },
    givenUpReason: {
      type: ['string', 'null'],
      description: 'Why it was given up before its last attempt (endpoint disabled, backlog over its bound).',
    },
    attempts: {
      type: 'array',
      description: 'Every attempt, oldest first.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: [
          'attempt',
          'attemptedAt',
          'status',
          'durationMs',
          'error',
          'nextRetryAt',
          'requestBody',
          'responseBody',
          'responseTruncated',
        ],
        properties: {
          attempt: { type: 'integer', minimum: 1 },
          attemptedAt: { type: 'string' },
          status: {
            type: ['integer', 'null'],
            description: "The receiver's HTTP status; null when it did not answer.",
          },
          durationMs: { type: 'integer', minimum: 0 },
          error: {
            type: ['string', 'null'],
            description:
              'Why the attempt did not deliver, in words: refused address, connection refused, timed out, TLS failed, or the HTTP status. Null when delivered.',
          },
          nextRetryAt: { type: ['string', 'null'] },
          requestBody: {
            type: ['string', 'null'],
            description:
              'The exact body sent (the signature covers these bytes); null when no request was made, or for an attempt recorded before this was kept.',
          },
          responseBody: {
            type: ['string', 'null'],
            description: `The first ${RESPONSE_KEPT_BYTES} bytes of the receiver's answer, as UTF-8; null without an answer.`,
          },
          responseTruncated: {
            type: ['boolean', 'null'],
            description: `The answer was longer than ${RESPONSE_KEPT_BYTES} bytes.`,
          },
        },
      },
    },
  },
} as const;

export const webhookRedeliverySchema = {
  title: 'WebhookRedeliveryQueued',
  type: 'object',
  additionalProperties: false,
  required: ['queued'],
  properties: {
    queued: {
      type: 'boolean',
      const: true,
      description: 'The message is due now (or already was, or is in flight): see its attempts.',
    },
  },
} as const;
