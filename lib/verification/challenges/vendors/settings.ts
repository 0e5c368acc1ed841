import type { SettingsSpec } from '../../../config/settings.js';
import { defaultLevelOf, isFreeByDefault, type ChallengeName } from '../../catalogue.js';
import { ASSURANCE_LEVELS, type AssuranceLevel } from '../../challenge.js';

/** The settings every vendor challenge shares: whether it is free and the level it records. */
export interface ChallengeBasics {
  free: boolean;
  assuranceLevel: AssuranceLevel;
}

/** `<PREFIX>_FREE` and `<PREFIX>_ASSURANCE_LEVEL`, defaulting to the catalogue's entry for `name`. */
export const basicsSpec = (prefix: string, name: ChallengeName): SettingsSpec<ChallengeBasics> => ({
  free: { env: `${prefix}_FREE`, schema: { type: 'boolean' }, default: isFreeByDefault(name) },
  assuranceLevel: {
    env: `${prefix}_ASSURANCE_LEVEL`,
    schema: { type: 'string', enum: [...ASSURANCE_LEVELS] },
    default: defaultLevelOf(name),
  },
});
