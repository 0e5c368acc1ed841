import { ConfigError, outboundTimeoutSetting, type SettingsSection } from '../../../config/settings.js';
import { basicsSpec, type ChallengeBasics } from '../vendors/settings.js';

export interface CreditCardSettings extends ChallengeBasics {
  timeoutMs: number;
}

/** The credit_card settings and the processor's keys. */
export interface CreditCardSetup {
  settings: CreditCardSettings;
  stripe: { secretKey: string; publishableKey: string };
}

interface Raw extends CreditCardSettings {
  vendor: 'stripe';
  stripeSecretKey: string;
  stripePublishableKey: string;
}

/** The credit_card section: on as soon as a processor is named or its keys are given (docs/challenges.md "credit_card"). */
export const creditCardSettings: SettingsSection<CreditCardSetup | undefined, Raw> = {
  enabledBy: ['CREDIT_CARD_VENDOR', 'STRIPE_SECRET_KEY', 'STRIPE_PUBLISHABLE_KEY'],
  spec: {
    ...basicsSpec('CREDIT_CARD', 'credit_card'),
    vendor: { env: 'CREDIT_CARD_VENDOR', schema: { type: 'string', enum: ['stripe'] }, default: 'stripe' },
    timeoutMs: outboundTimeoutSetting,
    stripeSecretKey: {
      env: 'STRIPE_SECRET_KEY',
      schema: { type: 'string', pattern: '^(sk|rk)_(live|test)_[A-Za-z0-9]+$' },
    },
    stripePublishableKey: {
      env: 'STRIPE_PUBLISHABLE_KEY',
      schema: { type: 'string', pattern: '^pk_(live|test)_[A-Za-z0-9]+$' },
    },
  },
  finish({ vendor: _stripe, stripeSecretKey: secretKey, stripePublishableKey: publishableKey, ...settings }) {
    if (secretKey.includes('_live_') !== publishableKey.includes('_live_')) {
      throw new ConfigError('STRIPE_SECRET_KEY and STRIPE_PUBLISHABLE_KEY must both be live keys or both test keys');
    }
    return { settings, stripe: { secretKey, publishableKey } };
  },
};
