import type { Preset } from '../preset.js';
import { euDefault, germany, italy, spain } from './europe.js';
import { france } from './france.js';
import { unitedKingdom } from './united-kingdom.js';
import { US_STATE_PRESETS } from './us-states.js';

/** Every preset shipped, by id: what POLICY_PRESETS may name (docs/policies.md lists them with their sources). */
export const PRESETS: ReadonlyMap<string, Preset> = new Map(
  [euDefault, france, unitedKingdom, germany, italy, spain, ...US_STATE_PRESETS].map((preset) => [preset.id, preset]),
);
