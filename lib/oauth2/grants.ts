import type Provider from 'oidc-provider';
import { SCOPE } from './protocol.js';

export type Grant = InstanceType<Provider['Grant']>;

/**
 * A fresh Grant for one authorization, with the `read` scope, not yet saved: the interaction's end saves it with its
 * verification and the interaction's result, in one statement (flow-storage.ts endInteraction).
 */
export function newGrant(provider: Provider, input: { accountId: string; clientId: string }): Grant {
  const grant = new provider.Grant({ accountId: input.accountId, clientId: input.clientId });
  grant.addOIDCScope(SCOPE);
  return grant;
}
