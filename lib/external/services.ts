import type { AuditServices } from '../audit/activity.js';
import type { EvidenceSigningServices } from '../evidence/evidence.js';
import type { RateLimits } from '../http/rate-limit.js';
import type { StatisticsServices } from '../statistics/services.js';
import type { WebhookServices } from '../webhooks/services.js';
import type { WebsiteServices } from '../websites/services.js';

/** What the External API takes, in its own terms: the services it answers for, and its limits. */
export type ExternalServices = WebsiteServices &
  WebhookServices &
  StatisticsServices &
  AuditServices &
  EvidenceSigningServices & {
    rateLimits: Pick<RateLimits, 'limiter'>;
  };
