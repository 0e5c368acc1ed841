import type { SettingsSection } from '../config/settings.js';
import type { Preset } from './preset.js';
import { PRESETS } from './presets/index.js';

/** The operator's policy settings, as options to createAgeProvider (`policies`) or environment variables. */
export interface PolicyOptions {
  /** ids of the presets in force for every website (docs/policies.md) */
  presets?: string[];
}

export interface PolicySettings {
  /** none by default: every website verifies as the spec's `regions` and AGE_THRESHOLDS say, nothing more */
  presets: readonly Preset[];
}

const IDS = [...PRESETS.keys()];

/** The policy section of the configuration (docs/policies.md). */
export const policySettings: SettingsSection<PolicySettings, PolicyOptions> = {
  spec: {
    presets: {
      env: 'POLICY_PRESETS',
      list: true,
      optional: true,
      schema: { type: 'array', uniqueItems: true, items: { type: 'string', enum: IDS } },
      expected: `must list distinct preset ids among ${IDS.join(', ')}`,
    },
  },
  finish: (raw) => ({ presets: (raw.presets ?? []).map((id) => PRESETS.get(id)!) }),
};
