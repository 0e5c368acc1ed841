import type { MailSettings } from '../../../mail/mailer.js';
import { mailSpec } from '../../../mail/settings.js';
import { outboundTimeoutSetting, type SettingsSection } from '../../../config/settings.js';
import { basicsSpec, type ChallengeBasics } from '../vendors/settings.js';

export interface EmailAgeSettings extends ChallengeBasics {
  /** country sent to the vendor when the geo resolver does not know the visitor's (ISO 3166-1 alpha-2) */
  defaultCountry?: string;
  timeoutMs: number;
}

/** The email_age settings, its vendor's credentials and the mail server the codes are sent through. */
export interface EmailAgeSetup {
  settings: EmailAgeSettings;
  yoti: { apiKey: string; sdkId: string };
  mail: MailSettings;
}

interface Raw extends EmailAgeSettings {
  vendor: 'yoti';
  yotiApiKey: string;
  yotiSdkId: string;
  smtpUrl: string;
  from: string;
}

/** The email_age section: on as soon as a vendor is named or its credentials are given (docs/challenges.md "email_age"). */
export const emailAgeSettings: SettingsSection<EmailAgeSetup | undefined, Raw> = {
  enabledBy: ['EMAIL_AGE_VENDOR', 'EMAIL_AGE_YOTI_API_KEY', 'EMAIL_AGE_YOTI_SDK_ID'],
  spec: {
    ...basicsSpec('EMAIL_AGE', 'email_age'),
    vendor: { env: 'EMAIL_AGE_VENDOR', schema: { type: 'string', enum: ['yoti'] }, default: 'yoti' },
    defaultCountry: {
      env: 'EMAIL_AGE_DEFAULT_COUNTRY',
      schema: { type: 'string', pattern: '^[A-Z]{2}$' },
      optional: true,
    },
    timeoutMs: outboundTimeoutSetting,
    yotiApiKey: { env: 'EMAIL_AGE_YOTI_API_KEY', schema: { type: 'string', minLength: 8, pattern: '^\\S+$' } },
    yotiSdkId: { env: 'EMAIL_AGE_YOTI_SDK_ID', schema: { type: 'string', pattern: '^[0-9a-fA-F-]{36}$' } },
    smtpUrl: mailSpec.smtpUrl,
    from: mailSpec.from,
  },
  finish: ({ vendor: _yoti, yotiApiKey, yotiSdkId, smtpUrl, from, ...settings }) => ({
    settings,
    yoti: { apiKey: yotiApiKey, sdkId: yotiSdkId },
    mail: { smtpUrl, from, timeoutMs: settings.timeoutMs },
  }),
};
