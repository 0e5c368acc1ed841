import { outboundTimeoutSetting, type SettingsSection, type SettingsSpec } from '../config/settings.js';
import type { MailSettings } from './mailer.js';

/** SMTP_URL and MAIL_FROM (both required by whatever sends mail), and VENDOR_TIMEOUT_MS for the SMTP timeouts. */
export const mailSpec: SettingsSpec<MailSettings> = {
  smtpUrl: { env: 'SMTP_URL', schema: { type: 'string', pattern: '^(console|smtps?://[^\\s/]+/?(\\?\\S*)?)$' } },
  from: {
    env: 'MAIL_FROM',
    schema: { type: 'string', minLength: 3, maxLength: 254, pattern: '^[^\\r\\n]*@[^\\r\\n]*$' },
  },
  timeoutMs: outboundTimeoutSetting,
};

/**
 * The mail server the service itself sends through (the platform's one-time sign-in codes): on as soon as SMTP_URL
 * is set, the same variables the email challenge reads.
 */
export const mailSettings: SettingsSection<MailSettings | undefined, MailSettings> = {
  enabledBy: ['SMTP_URL'],
  spec: mailSpec,
};
