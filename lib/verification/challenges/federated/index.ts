import type { ChallengeModule } from '../../registry.js';
import { createFederatedChallenge } from './challenge.js';
import { federatedProviders } from './providers.js';
import { FEDERATED_NAMES } from './settings.js';

export { federatedCallbackRoutes } from './callback-route.js';

/** anonymage, pleenk, paypal, agego and agekey: each loads only when the operator configured its provider. */
export const federatedModules: readonly ChallengeModule[] = FEDERATED_NAMES.map((name) => ({
  name,
  configure(runtime) {
    const provider = federatedProviders(runtime).get(name);
    return provider && createFederatedChallenge(provider);
  },
}));
