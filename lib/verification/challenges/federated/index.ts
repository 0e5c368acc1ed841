import type { ChallengeModule } from '../../challenge.js';
import { createFederatedChallenge } from './challenge.js';
import { federatedCallbackRoutes } from './callback-route.js';
import { federatedProvider } from './providers.js';
import { FEDERATED_NAMES } from './settings.js';

/**
 * anonymage, pleenk, paypal, agego and agekey: each loads only when the operator configured its provider, with the
 * fixed callback route the operator registered with it.
 */
export const federatedModules: readonly ChallengeModule[] = FEDERATED_NAMES.map((name) => ({
  name,
  configure(runtime) {
    const provider = federatedProvider(runtime, name);
    return provider && { ...createFederatedChallenge(provider), routes: federatedCallbackRoutes(runtime, provider) };
  },
}));
