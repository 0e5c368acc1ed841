import type Provider from 'oidc-provider';
import { saveGrantLinked } from '../../adapters/knex.js';
import { SCOPE } from './protocol.js';

/**
 * A fresh Grant for one authorization, with the `read` scope, saved together with its link to the verification
 * (one statement); returns its id. The interaction pages finish the interaction with `consent: { grantId }`.
 */
export async function issueGrant(provider: Provider, input: { accountId: string; clientId: string; verificationUid: string }): Promise<string> {
  const grant = new provider.Grant({ accountId: input.accountId, clientId: input.clientId });
  grant.addOIDCScope(SCOPE);
  return saveGrantLinked(input.verificationUid, () => grant.save());
}
