import type { AuditServices } from '../audit/activity.js';
import type { EvidenceSigningServices } from '../evidence/evidence.js';
import type { Branding } from '../branding/settings.js';
import type { RateLimits } from '../http/rate-limit.js';
import type { MailSettings } from '../mail/mailer.js';
import type { StatisticsServices } from '../statistics/services.js';
import type { WebhookServices } from '../webhooks/services.js';
import type { WebsiteServices } from '../websites/services.js';
import type { WebmasterSettings } from '../webmasters/settings.js';

/** What the webmasters' platform takes, in its own terms: the services its pages drive, its limits and its mail. */
export type PlatformServices = WebsiteServices &
  WebhookServices &
  StatisticsServices &
  AuditServices &
  EvidenceSigningServices & {
    rateLimits: RateLimits;
    config: {
      readonly issuer: string;
      readonly branding: Branding;
      /** the one-time sign-in codes are mailed, when a mail server is configured */
      readonly mail: MailSettings | undefined;
      readonly webmasters: WebmasterSettings;
      /** how long flows stay listed on the Verifications section (a verification's lifetime and its retention after) */
      readonly verificationTtl: number;
      readonly verificationRetention: number;
    };
  };
