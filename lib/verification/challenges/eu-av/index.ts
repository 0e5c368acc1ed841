import type { ChallengeModule } from '../../challenge.js';
import { createEuAvChallenge } from './challenge.js';
import { walletResponseRoutes } from './response-route.js';
import { euAvSettings, type EuAvSettings } from './settings.js';

/** eu_av loads when EU_AV_TRUSTED_ISSUERS names the issuers to trust; its wallet response endpoint comes with it. */
export const euAvModule: ChallengeModule<EuAvSettings> = {
  name: 'eu_av',
  settings: euAvSettings,
  configure(runtime, settings) {
    if (!settings) return undefined;
    return { ...createEuAvChallenge(settings, runtime.config.issuer), routes: walletResponseRoutes(runtime, settings) };
  },
};
