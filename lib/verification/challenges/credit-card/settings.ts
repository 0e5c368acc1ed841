import { ConfigError } from '../../../config/load.js';
import type { Runtime } from '../../../runtime.js';
import { anySet, outboundTimeoutSetting, readSettings } from '../../../config/env-settings.js';
import { basicsSpec, type ChallengeBasics } from '../vendors/settings.js';
import type { CardProcessor } from './processor.js';
import { stripeCardProcessor } from './stripe.js';

export interface CreditCardSettings extends ChallengeBasics {
  timeoutMs: number;
}

const STRIPE_KEYS = { secretKey: 'STRIPE_SECRET_KEY', publishableKey: 'STRIPE_PUBLISHABLE_KEY' } as const;

/** The credit_card settings and processor, or undefined when the operator configured no processor. */
export function loadCreditCardSettings(runtime: Runtime): { settings: CreditCardSettings; processor: CardProcessor } | undefined {
  const { env } = runtime;
  if (!anySet(env, ['CREDIT_CARD_VENDOR', ...Object.values(STRIPE_KEYS)])) return undefined;
  const settings = readSettings<CreditCardSettings & { vendor: 'stripe' }>(env, {
    ...basicsSpec('CREDIT_CARD', 'credit_card'),
    vendor: { env: 'CREDIT_CARD_VENDOR', schema: { type: 'string', enum: ['stripe'] }, default: 'stripe' },
    timeoutMs: outboundTimeoutSetting,
  });
  const stripe = readSettings<{ secretKey: string; publishableKey: string }>(env, {
    secretKey: { env: STRIPE_KEYS.secretKey, schema: { type: 'string', pattern: '^(sk|rk)_(live|test)_[A-Za-z0-9]+$' } },
    publishableKey: { env: STRIPE_KEYS.publishableKey, schema: { type: 'string', pattern: '^pk_(live|test)_[A-Za-z0-9]+$' } },
  });
  if (stripe.secretKey.includes('_live_') !== stripe.publishableKey.includes('_live_')) {
    throw new ConfigError('invalid configuration: STRIPE_SECRET_KEY and STRIPE_PUBLISHABLE_KEY must both be live keys or both test keys');
  }
  return { settings, processor: stripeCardProcessor(stripe, { timeoutMs: settings.timeoutMs, log: runtime.log }) };
}
