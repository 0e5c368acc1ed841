import type { AdapterPayload } from 'oidc-provider';
import type { OAuth2Services } from './services.js';
import type { PolicyRule } from '../policy/rule.js';
import type { Environment } from '../verification/challenge.js';
import { findCheckerClientWebsite, isCheckerClientId } from '../checker/client.js';
import { SCOPE } from './protocol.js';
import { findActiveClient, type ActiveClient } from '../websites/clients.js';

/** The website behind an OAuth2 client_id, as the visitor's pages need it. */
export interface ClientWebsite {
  clientId: string;
  environment: Environment;
  redirectUris: string[];
  website: {
    id: number; name: string; domain: string; domainVerified: boolean; language: string; challenges: string[]; regions: string[];
    /** its own policy rules (docs/policies.md) */
    policyRules: PolicyRule[];
  };
}

const toClientWebsite = (row: ActiveClient): ClientWebsite => ({
  clientId: row.client_id,
  environment: row.environment,
  redirectUris: row.redirect_uris,
  website: {
    id: row.website_id,
    name: row.name,
    domain: row.domain,
    domainVerified: row.domain_verified_at !== null,
    language: row.language,
    challenges: row.challenges,
    regions: row.regions,
    policyRules: row.policy_rules,
  },
});

export async function findClientWebsite(runtime: OAuth2Services, clientId: string): Promise<ClientWebsite | undefined> {
  if (isCheckerClientId(clientId)) return findCheckerClientWebsite(runtime, clientId);
  const row = await findActiveClient(runtime, clientId);
  return row ? toClientWebsite(row) : undefined;
}

/**
 * oidc-provider client metadata for a client_id, or undefined when it does not resolve. Asked on every request (the
 * provider caches only the built object by a hash of this metadata); the row comes from the instance's client cache,
 * which every change to a client empties on every instance, so disabling or rotating takes effect at once.
 */
export async function findClientMetadata(runtime: OAuth2Services, clientId: string): Promise<AdapterPayload | undefined> {
  const row = await findActiveClient(runtime, clientId);
  if (!row) return undefined;
  return {
    client_id: row.client_id,
    client_secret: runtime.sealer.unseal(row.secret_sealed),
    client_name: row.name,
    redirect_uris: row.redirect_uris,
    grant_types: ['authorization_code'],
    response_types: ['code'],
    // Either secret method works for every client (client_auth accepts both for secret-based clients).
    token_endpoint_auth_method: 'client_secret_basic',
    scope: SCOPE,
    environment: row.environment,
  };
}
