import type { Scope, ScopeValues } from './operations.js';
import {
  websiteEnvironmentOf,
  websiteIdOf,
  websiteVerificationOf,
  websiteWebhookMessageOf,
  websiteWebhookOf,
} from '../websites/identifiers.js';

/** The typed path values of an operation's scope; a malformed website_id, webhook_id, message_id or environment is 400. */
export function pathValues<S extends Scope>(scope: S, params: Record<string, string | undefined>): ScopeValues[S] {
  return valuesOf(scope, params) as ScopeValues[S];
}

function valuesOf(scope: Scope, params: Record<string, string | undefined>): ScopeValues[Scope] {
  if (scope === 'account') return {};
  if (scope === 'website') return websiteIdOf(params);
  if (scope === 'verification') return websiteVerificationOf(params);
  if (scope === 'webhookMessage') return websiteWebhookMessageOf(params);
  return scope === 'webhook' ? websiteWebhookOf(params) : websiteEnvironmentOf(params);
}
