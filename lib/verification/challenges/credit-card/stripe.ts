import { randomUUID } from 'node:crypto';
import { Ajv, type JSONSchemaType } from 'ajv';
import type { Logger } from '../../../log.js';
import { callVendor, VendorUnavailableError, type VendorResponse } from '../vendors/http.js';
import type { CardProcessor, CardResult } from './processor.js';

/** Stripe's REST API (https://docs.stripe.com/api/setup_intents), with the API version pinned so shapes cannot drift. */
export const STRIPE_API = 'https://api.stripe.com/v1';
export const STRIPE_VERSION = '2024-06-20';

export interface StripeSettings {
  secretKey: string;
  publishableKey: string;
}

interface SetupIntentCreated {
  id: string;
  client_secret: string;
}

interface SetupIntentRead {
  id: string;
  status: string;
  metadata: { interaction?: string };
  payment_method: { card?: { funding?: string } | null } | string | null;
}

const createdSchema: JSONSchemaType<SetupIntentCreated> = {
  type: 'object',
  required: ['id', 'client_secret'],
  properties: { id: { type: 'string', pattern: '^seti_' }, client_secret: { type: 'string', minLength: 1 } },
};
const readSchema = {
  type: 'object',
  required: ['id', 'status', 'metadata', 'payment_method'],
  properties: {
    id: { type: 'string' },
    status: { type: 'string' },
    metadata: { type: 'object' },
    payment_method: { type: ['object', 'string', 'null'] },
  },
} as const;
const ajv = new Ajv({ allowUnionTypes: true });
const isCreated = ajv.compile(createdSchema);
const isRead = ajv.compile<SetupIntentRead>(readSchema);

/**
 * A SetupIntent checks a card without charging it: Stripe.js collects the card and runs 3-D Secure in the browser
 * (request_three_d_secure=any asks for it whenever the card supports it); we then read the SetupIntent and its
 * PaymentMethod server-side. Plain fetch rather than the `stripe` package: two calls, our own timeout and retry
 * policy, and no dependency.
 */
export function stripeCardProcessor(
  settings: StripeSettings,
  options: { timeoutMs: number; log: Logger },
): CardProcessor {
  const headers = { Authorization: `Bearer ${settings.secretKey}`, 'Stripe-Version': STRIPE_VERSION };

  function unexpected(response: VendorResponse, what: string): never {
    options.log.error(`stripe refused to ${what}: check STRIPE_SECRET_KEY`, { status: response.status });
    throw new VendorUnavailableError(`stripe answered ${response.status}`);
  }

  return {
    vendor: 'stripe',
    label: 'Stripe',
    template: 'challenges/credit-card-stripe.njk',
    csp: {
      'script-src': ['https://js.stripe.com'],
      'frame-src': ['https://js.stripe.com', 'https://hooks.stripe.com'],
      'connect-src': ['https://api.stripe.com'],
    },
    browser: { publishableKey: settings.publishableKey },

    async begin(reference) {
      const body = new URLSearchParams({
        usage: 'on_session',
        'payment_method_types[]': 'card',
        'payment_method_options[card][request_three_d_secure]': 'any',
        'metadata[interaction]': reference,
      }).toString();
      // The idempotency key makes the create safe to retry: Stripe answers a repeat with the first result.
      const response = await callVendor(
        {
          vendor: 'stripe',
          operation: 'create-setup-intent',
          method: 'POST',
          url: `${STRIPE_API}/setup_intents`,
          headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded', 'Idempotency-Key': randomUUID() },
          body,
          idempotent: true,
        },
        options,
      );
      if (response.status !== 200) unexpected(response, 'create a SetupIntent');
      if (!isCreated(response.body)) throw malformed(options.log);
      return { id: response.body.id, clientSecret: response.body.client_secret };
    },

    async result(id, reference): Promise<CardResult> {
      const response = await callVendor(
        {
          vendor: 'stripe',
          operation: 'read-setup-intent',
          method: 'GET',
          url: `${STRIPE_API}/setup_intents/${encodeURIComponent(id)}?${new URLSearchParams({ 'expand[]': 'payment_method' }).toString()}`,
          headers,
          idempotent: true,
        },
        options,
      );
      // An id that is not ours (or not a SetupIntent at all) came from a tampered form.
      if (response.status === 404 || response.status === 400) return 'incomplete';
      if (response.status !== 200) unexpected(response, 'read a SetupIntent');
      if (!isRead(response.body)) throw malformed(options.log);
      const intent = response.body;
      if (intent.metadata.interaction !== reference || intent.status !== 'succeeded') return 'incomplete';
      const method = intent.payment_method;
      if (typeof method !== 'object' || method === null) throw malformed(options.log);
      return method.card?.funding === 'credit' ? 'credit' : 'not-credit';
    },
  };
}

function malformed(log: Logger): VendorUnavailableError {
  log.warn('stripe answered in an unexpected shape');
  return new VendorUnavailableError('stripe answer malformed');
}
