import type { Environment } from '../websites/index.js';
import type { Scope, ScopeValues } from './operations.js';
import { environmentPathSchema, webhookPathSchema, websitePathSchema } from '../websites/schemas/path-parameters.js';
import { validator } from '../websites/validation.js';

const validateWebsitePath = validator<{ website_id: string }>(websitePathSchema, 'path');
const validateWebhookPath = validator<{ website_id: string; webhook_id: string }>(webhookPathSchema, 'path');
const validateEnvironmentPath = validator<{ website_id: string; environment: 'live' | 'test' }>(environmentPathSchema, 'path');

/** The typed path values of an operation's scope; a malformed website_id, webhook_id or environment is 400 (ARCHITECTURE §6.8). */
export function pathValues<S extends Scope>(scope: S, params: Record<string, string | undefined>): ScopeValues[S] {
  return valuesOf(scope, params) as ScopeValues[S];
}

function valuesOf(scope: Scope, params: Record<string, string | undefined>): ScopeValues[Scope] {
  if (scope === 'account') return {};
  if (scope === 'website') return { websiteId: Number(validateWebsitePath(params).website_id) };
  if (scope === 'webhook') {
    const path = validateWebhookPath(params);
    return { websiteId: Number(path.website_id), webhookId: Number(path.webhook_id) };
  }
  const path = validateEnvironmentPath(params);
  const environment: Environment = path.environment === 'live' ? 'LIVE' : 'TEST';
  return { websiteId: Number(path.website_id), environment };
}
