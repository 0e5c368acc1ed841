import type { ChallengeServices } from '../../services.js';
import type { FederatedSettings } from './settings.js';
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
 * A configured provider, built once at start-up: its challenge and its callback route close over this one object, so
 * they share one discovery cache.
 */
export function federatedProvider(runtime: ChallengeServices, settings: FederatedSettings): FederatedProvider {
  return {
    settings,
    upstream: createUpstream(settings),
    redirectUri: `${runtime.config.issuer}${federatedCallbackPath(settings.name)}`,
  };
}
