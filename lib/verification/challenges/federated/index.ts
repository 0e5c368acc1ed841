import type { ChallengeModule } from '../../challenge.js';
import { createFederatedChallenge } from './challenge.js';
import { federatedCallbackRoutes } from './callback-route.js';
import { federatedProvider } from './providers.js';
import { FEDERATED_NAMES, federatedSettings, type FederatedSettings } from './settings.js';

/**
 * anonymage, pleenk, paypal, agego and agekey: each loads only when the operator configured its provider, with the
 * fixed callback route the operator registered with it.
 */
export const federatedModules: readonly ChallengeModule<FederatedSettings>[] = FEDERATED_NAMES.map((name) => ({
  name,
  settings: federatedSettings(name),
  configure(runtime, settings) {
    if (!settings) return undefined;
    const provider = federatedProvider(runtime, settings);
    return { ...createFederatedChallenge(provider), routes: federatedCallbackRoutes(runtime, provider) };
  },
}));
