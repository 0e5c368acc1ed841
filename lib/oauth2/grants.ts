import type Provider from 'oidc-provider';
import { SCOPE } from './protocol.js';

/**
 * A fresh Grant for one authorization, with the `read` scope; returns its id. Saved inside the interaction's end
 * (outcome.ts handOver), it is written with its verification and the interaction's result, in one statement.
 */
export async function issueGrant(provider: Provider, input: { accountId: string; clientId: string }): Promise<string> {
  const grant = new provider.Grant({ accountId: input.accountId, clientId: input.clientId });
  grant.addOIDCScope(SCOPE);
  return grant.save();
}
