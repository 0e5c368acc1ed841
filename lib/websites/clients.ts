import type { WebsiteServices } from './services.js';
import type { PolicyRule } from '../policy/rule.js';
import type { Environment } from './models.js';

/** An OAuth2 client as its website's configuration and credentials make it (row of findActiveClient). */
export interface ActiveClient {
  client_id: string;
  secret_sealed: string;
  environment: Environment;
  redirect_uris: string[];
  website_id: number;
  name: string;
  domain: string;
  domain_verified_at: Date | null;
  language: string;
  challenges: string[];
  regions: string[];
  policy_rules: PolicyRule[];
  valid_until: Date | null;
}

/**
 * Every website public key has an internal OAuth2 client (lib/checker/client.ts): its client_id is the key behind
 * this prefix, which no registered client_id has (those start with `live_`/`test_`), so it needs no row and dies
 * with the key.
 */
export const CHECKER_CLIENT_PREFIX = 'checker_';

/**
 * Whether a client_id still resolves, the one rule for every reader (the client lookup below, Resources' statement
 * in lib/verification/verifications.ts): a registered client's configuration is ACTIVE and its credential pair is
 * current, or superseded but inside its grace (CREDENTIAL_GRACE_SECONDS, websites/oauth2.ts); an internal checker
 * client's public key is the website's current one. SQL over the aliases `credential` (oauth2_credentials) and
 * `config` (oauth2_configs); `now` is the SQL of the current time.
 */
const liveCredential = (now: string): string =>
  `config.status = 'ACTIVE' AND (credential.superseded_at IS NULL OR credential.valid_until > ${now})`;

/** The same rule as one SQL condition on the client_id `clientId` (an SQL expression). */
export const clientResolves = (clientId: string, now: string): string =>
  `(EXISTS (SELECT 1 FROM oauth2_credentials credential JOIN oauth2_configs config ON config.id = credential.config_id
             WHERE credential.client_id = ${clientId} AND ${liveCredential(now)})
    OR EXISTS (SELECT 1 FROM website_keys website_key WHERE '${CHECKER_CLIENT_PREFIX}' || website_key.public_key = ${clientId}))`;

/** The one query resolving a registered client_id, by the rule above. */
function queryActiveClient({ db, clock }: WebsiteServices, clientId: string): Promise<ActiveClient | undefined> {
  return db('oauth2_credentials as credential')
    .join('oauth2_configs as config', 'config.id', 'credential.config_id')
    .join('websites as website', 'website.id', 'config.website_id')
    .select(
      'credential.client_id',
      'credential.secret_sealed',
      'config.environment',
      'config.redirect_uris',
      'website.id as website_id',
      'website.name',
      'website.domain',
      'website.domain_verified_at',
      'website.language',
      'website.challenges',
      'website.regions',
      'website.policy_rules',
      'credential.valid_until',
    )
    .where('credential.client_id', clientId)
    .whereRaw(liveCredential('?'), [clock.now()])
    .first<ActiveClient | undefined>();
}

/**
 * The client a client_id names, beside the rotation that defines "current" and "grace" (oauth2.ts); remembered per
 * instance until a client change is announced or its grace ends (client-cache.ts).
 */
export function findActiveClient(runtime: WebsiteServices, clientId: string): Promise<ActiveClient | undefined> {
  return runtime.clients.get(`client:${clientId}`, async () => {
    const row = await queryActiveClient(runtime, clientId);
    return { value: row, validUntil: row?.valid_until ?? null };
  });
}

/** The website behind an OAuth2 client_id, as the visitor's pages need it. */
export interface ClientWebsite {
  clientId: string;
  environment: Environment;
  redirectUris: string[];
  website: {
    id: number;
    name: string;
    domain: string;
    domainVerified: boolean;
    language: string;
    challenges: string[];
    regions: string[];
    /** its own policy rules (docs/policies.md) */
    policyRules: PolicyRule[];
  };
}
