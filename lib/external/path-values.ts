import type { Environment } from '../websites/index.js';
import type { Scope } from './operations.js';
import { environmentPathSchema, websitePathSchema } from './schemas/path-parameters.js';
import { validator } from './validation.js';

const validateWebsitePath = validator<{ website_id: string }>(websitePathSchema, 'path');
const validateEnvironmentPath = validator<{ website_id: string; environment: 'live' | 'test' }>(environmentPathSchema, 'path');

/** The typed path values of an operation's scope; a malformed website_id or environment is 400 (ARCHITECTURE §6.8). */
export function pathValues(scope: Scope, params: Record<string, string>): { websiteId?: number; environment?: Environment } {
  if (scope === 'account') return {};
  if (scope === 'website') return { websiteId: Number(validateWebsitePath(params).website_id) };
  const path = validateEnvironmentPath(params);
  return { websiteId: Number(path.website_id), environment: path.environment === 'live' ? 'LIVE' : 'TEST' };
}
