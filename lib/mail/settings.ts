import { outboundTimeoutSetting, type SettingsSpec } from '../config/settings.js';
import type { MailSettings } from './mailer.js';

/** SMTP_URL and MAIL_FROM (both required by whatever sends mail), and VENDOR_TIMEOUT_MS for the SMTP timeouts. */
export const mailSpec: SettingsSpec<MailSettings> = {
  smtpUrl: { env: 'SMTP_URL', schema: { type: 'string', pattern: '^(console|smtps?://[^\\s/]+/?(\\?\\S*)?)$' } },
  from: { env: 'MAIL_FROM', schema: { type: 'string', minLength: 3, maxLength: 254, pattern: '^[^\\r\\n]*@[^\\r\\n]*$' } },
  timeoutMs: outboundTimeoutSetting,
};
