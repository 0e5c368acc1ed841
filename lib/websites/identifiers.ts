import type { Environment } from './models.js';
import {
  environmentPathSchema,
  verificationPathSchema,
  webhookMessagePathSchema,
  webhookPathSchema,
  websitePathSchema,
} from './schemas/path-parameters.js';
import { validator } from './validation.js';

const validateWebsitePath = validator<{ website_id: string }>(websitePathSchema, 'path');
const validateWebhookPath = validator<{ website_id: string; webhook_id: string }>(webhookPathSchema, 'path');
const validateWebhookMessagePath = validator<{ website_id: string; webhook_id: string; message_id: string }>(
  webhookMessagePathSchema,
  'path',
);
const validateVerificationPath = validator<{ website_id: string; verification_id: string }>(
  verificationPathSchema,
  'path',
);
const validateEnvironmentPath = validator<{ website_id: string; environment: 'live' | 'test' }>(
  environmentPathSchema,
  'path',
);

/** Path parameters as a router hands them over. */
type Params = Record<string, string | undefined>;

/** The website a path's `website_id` names; a malformed one is refused as invalid (both surfaces use it). */
export const websiteIdOf = (params: Params): { websiteId: number } => ({
  websiteId: Number(validateWebsitePath(params).website_id),
});

/** The website and the environment (`live`, `test`) a path names; malformed values are refused as invalid. */
export function websiteEnvironmentOf(params: Params): { websiteId: number; environment: Environment } {
  const path = validateEnvironmentPath(params);
  return { websiteId: Number(path.website_id), environment: path.environment === 'live' ? 'LIVE' : 'TEST' };
}

/** The website and one of its webhooks a path names; malformed ids are refused as invalid. */
export function websiteWebhookOf(params: Params): { websiteId: number; webhookId: number } {
  const path = validateWebhookPath(params);
  return { websiteId: Number(path.website_id), webhookId: Number(path.webhook_id) };
}

/** The website, one of its webhooks and one of that webhook's messages a path names; malformed values are refused as invalid. */
export function websiteWebhookMessageOf(params: Params): { websiteId: number; webhookId: number; messageId: string } {
  const path = validateWebhookMessagePath(params);
  return { websiteId: Number(path.website_id), webhookId: Number(path.webhook_id), messageId: path.message_id };
}

/** The website and one of its verifications (by the uid the website received) a path names; malformed values are refused as invalid. */
export function websiteVerificationOf(params: Params): { websiteId: number; verificationId: string } {
  const path = validateVerificationPath(params);
  return { websiteId: Number(path.website_id), verificationId: path.verification_id };
}
