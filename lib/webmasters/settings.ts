import type { SettingsSection } from '../config/settings.js';

/** How webmasters sign in to the platform (docs/configuration.md, docs/decisions/security.md "A second factor"). */
export interface WebmasterSettings {
  /** Every webmaster must have a second factor: one without is walked through adding it before anything else. */
  secondFactorRequired: boolean;
}

export const webmasterSettings: SettingsSection<WebmasterSettings> = {
  spec: {
    secondFactorRequired: { env: 'WEBMASTER_SECOND_FACTOR_REQUIRED', schema: { type: 'boolean' }, default: false },
  },
};
