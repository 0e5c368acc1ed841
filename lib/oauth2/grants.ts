import type Provider from 'oidc-provider';
import { SCOPE } from './scope.js';

/**
 * A fresh Grant for one authorization, with the `read` scope, saved; returns its id. The interaction pages
 * link it to the verification (linkGrant) and finish the interaction with `consent: { grantId }`.
 */
export async function issueGrant(provider: Provider, input: { accountId: string; clientId: string }): Promise<string> {
  const grant = new provider.Grant({ accountId: input.accountId, clientId: input.clientId });
  grant.addOIDCScope(SCOPE);
  return grant.save();
}
