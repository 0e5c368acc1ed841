import type { SettingsSpec } from '../../../config/env-settings.js';
import { ASSURANCE_LEVELS, type AssuranceLevel } from '../../challenge.js';

/** The settings every vendor challenge shares: whether it is free and the level it records (ARCHITECTURE §6.6). */
export interface ChallengeBasics {
  free: boolean;
  assuranceLevel: AssuranceLevel;
}

export const basicsSpec = (prefix: string, defaults: ChallengeBasics): SettingsSpec<ChallengeBasics> => ({
  free: { env: `${prefix}_FREE`, schema: { type: 'boolean' }, default: defaults.free },
  assuranceLevel: { env: `${prefix}_ASSURANCE_LEVEL`, schema: { type: 'string', enum: [...ASSURANCE_LEVELS] }, default: defaults.assuranceLevel },
});
