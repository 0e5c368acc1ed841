import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { OAuth2Services } from './services.js';
import { checkerClientMetadata, findCheckerClientWebsite, isCheckerClientId } from '../checker/client.js';
import { SCOPE } from './protocol.js';
import { findActiveClient, type ActiveClient, type ClientWebsite } from '../websites/clients.js';

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

/**
 * A registered website's oidc-provider client metadata. Asked on every request (the provider caches only the built
 * object by a hash of this metadata); the row comes from the instance's client cache, which every change to a client
 * empties on every instance, so disabling or rotating takes effect at once.
 */
async function registeredClientMetadata(
  runtime: OAuth2Services,
  clientId: string,
): Promise<AdapterPayload | undefined> {
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

/** One kind of client: how its website is found for the visitor's pages, and its metadata for oidc-provider. */
interface ClientKind {
  website(runtime: OAuth2Services, clientId: string): Promise<ClientWebsite | undefined>;
  metadata(runtime: OAuth2Services, clientId: string): Promise<AdapterPayload | undefined>;
}

const REGISTERED: ClientKind = {
  website: async (runtime, clientId) => {
    const row = await findActiveClient(runtime, clientId);
    return row ? toClientWebsite(row) : undefined;
  },
  metadata: registeredClientMetadata,
};

/** The checker script's internal client, one per website key (lib/checker/client.ts). */
const CHECKER: ClientKind = { website: findCheckerClientWebsite, metadata: checkerClientMetadata };

/** The one place that decides whether a client_id is the checker's internal client or a registered website's. */
const kindOf = (clientId: string): ClientKind => (isCheckerClientId(clientId) ? CHECKER : REGISTERED);

/** The website behind a client_id, as the visitor's pages need it; undefined when it does not resolve. */
export const findClientWebsite = (runtime: OAuth2Services, clientId: string): Promise<ClientWebsite | undefined> =>
  kindOf(clientId).website(runtime, clientId);

/** oidc-provider client metadata for a client_id, or undefined when it does not resolve. */
export const findClientMetadata = (runtime: OAuth2Services, clientId: string): Promise<AdapterPayload | undefined> =>
  kindOf(clientId).metadata(runtime, clientId);

/**
 * oidc-provider's `Client` model: clients resolve from the websites' own tables (findClientMetadata), never from the
 * storage adapter, which keeps oidc-provider's other models; they are changed through the External API and the
 * platform, never by oidc-provider.
 */
export function clientAdapter(runtime: OAuth2Services): Adapter {
  const refuse = (): Promise<never> =>
    Promise.reject(new Error('clients are managed through the External API, not oidc-provider'));
  return {
    find: (id) => findClientMetadata(runtime, id),
    findByUid: () => Promise.resolve(undefined),
    findByUserCode: () => Promise.resolve(undefined),
    upsert: refuse,
    consume: refuse,
    destroy: refuse,
    revokeByGrantId: refuse,
  };
}
