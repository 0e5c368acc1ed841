import { createMailer, type Mailer } from '../../../mail/mailer.js';
import { readMailSettings } from '../../../mail/settings.js';
import type { Runtime } from '../../../runtime.js';
import { anySet, outboundTimeoutSetting, readSettings } from '../../../config/env-settings.js';
import { basicsSpec, type ChallengeBasics } from '../vendors/settings.js';
import type { EmailAgeEstimator } from './estimator.js';
import { yotiEmailAgeEstimator } from './yoti.js';

export interface EmailAgeSettings extends ChallengeBasics {
  /** country sent to the vendor when the geo resolver does not know the visitor's (ISO 3166-1 alpha-2) */
  defaultCountry?: string;
  timeoutMs: number;
}

const YOTI_KEYS = { apiKey: 'EMAIL_AGE_YOTI_API_KEY', sdkId: 'EMAIL_AGE_YOTI_SDK_ID' } as const;

export interface EmailAgeSetup {
  settings: EmailAgeSettings;
  estimator: EmailAgeEstimator;
  mailer: Mailer;
}

/** The email_age settings, vendor and mailer, or undefined when the operator configured no email-age vendor. */
export function loadEmailAgeSettings(runtime: Runtime): EmailAgeSetup | undefined {
  const { env } = runtime;
  if (!anySet(env, ['EMAIL_AGE_VENDOR', ...Object.values(YOTI_KEYS)])) return undefined;
  const settings = readSettings<EmailAgeSettings & { vendor: 'yoti' }>(env, {
    ...basicsSpec('EMAIL_AGE', 'email_age'),
    vendor: { env: 'EMAIL_AGE_VENDOR', schema: { type: 'string', enum: ['yoti'] }, default: 'yoti' },
    defaultCountry: { env: 'EMAIL_AGE_DEFAULT_COUNTRY', schema: { type: 'string', pattern: '^[A-Z]{2}$' }, optional: true },
    timeoutMs: outboundTimeoutSetting,
  });
  const yoti = readSettings<{ apiKey: string; sdkId: string }>(env, {
    apiKey: { env: YOTI_KEYS.apiKey, schema: { type: 'string', minLength: 8, pattern: '^\\S+$' } },
    sdkId: { env: YOTI_KEYS.sdkId, schema: { type: 'string', pattern: '^[0-9a-fA-F-]{36}$' } },
  });
  return {
    settings,
    estimator: yotiEmailAgeEstimator(yoti, { timeoutMs: settings.timeoutMs, log: runtime.log }),
    mailer: createMailer(readMailSettings(env), runtime.log),
  };
}
