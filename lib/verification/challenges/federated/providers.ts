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

/**
 * The provider `name` when the operator configured it, built once at start-up: its challenge and its callback route
 * close over this one object, so they share one discovery cache. Throws ConfigError naming the variable at fault.
 */
export function federatedProvider(runtime: Runtime, name: FederatedName): FederatedProvider | undefined {
  const settings = loadFederatedSettings(runtime.env).find((candidate) => candidate.name === name);
  return settings && { settings, upstream: createUpstream(settings), redirectUri: `${runtime.config.issuer}${federatedCallbackPath(settings.name)}` };
}
