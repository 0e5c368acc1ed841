import type { Runtime } from '../../../runtime.js';
import { loadFederatedSettings, type FederatedName, type FederatedSettings } from './settings.js';
import { createUpstream, type Upstream } from './upstream.js';

/** A configured provider: its settings and its (lazily discovered) OpenID Connect client. */
export interface FederatedProvider {
  settings: FederatedSettings;
  upstream: Upstream;
  /** the fixed redirect URI the operator registers with the provider (it cannot name the interaction) */
  redirectUri: string;
}

/** Path of a provider's fixed callback; the interaction is found through the sealed `state`. */
export const federatedCallbackPath = (name: string): string => `/v1/oauth2/federated/${name}/callback`;

const built = new WeakMap<Runtime, ReadonlyMap<FederatedName, FederatedProvider>>();

/**
 * The providers the operator configured, built once per service so the challenges and the callback route share
 * one discovery cache. Throws ConfigError naming the variable at fault.
 */
export function federatedProviders(runtime: Runtime): ReadonlyMap<FederatedName, FederatedProvider> {
  let providers = built.get(runtime);
  if (!providers) {
    providers = new Map(loadFederatedSettings(runtime.env).map((settings) => [
      settings.name,
      { settings, upstream: createUpstream(settings), redirectUri: `${runtime.config.issuer}${federatedCallbackPath(settings.name)}` },
    ]));
    built.set(runtime, providers);
  }
  return providers;
}
