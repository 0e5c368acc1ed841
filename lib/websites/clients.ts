import type { Runtime } from '../runtime.js';
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
 * The one query deciding whether a client_id resolves: its configuration is ACTIVE and its credential pair is
 * current, or superseded but still inside its grace period (ARCHITECTURE §6.9).
 */
function queryActiveClient({ db, clock }: Runtime, clientId: string): Promise<ActiveClient | undefined> {
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
    .andWhere('config.status', 'ACTIVE')
    .andWhere((query) => query.whereNull('credential.superseded_at').orWhere('credential.valid_until', '>', clock.now()))
    .first<ActiveClient | undefined>();
}

/**
 * The client a client_id names, beside the rotation that defines "current" and "grace" (oauth2.ts); remembered per
 * instance until a client change is announced or its grace ends (client-cache.ts).
 */
export function findActiveClient(runtime: Runtime, clientId: string): Promise<ActiveClient | undefined> {
  return runtime.clients.get(`client:${clientId}`, async () => {
    const row = await queryActiveClient(runtime, clientId);
    return { value: row, validUntil: row?.valid_until ?? null };
  });
}
