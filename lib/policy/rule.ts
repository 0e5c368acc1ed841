import type { Location } from '../geo/location.js';
import { ASSURANCE_LEVELS, type AssuranceLevel, type ChallengeName } from '../verification/challenge.js';

/** Every region: the rule applies wherever no more specific rule of the same set does. */
export const EVERYWHERE = '*';

/**
 * One rule of a policy (docs/policies.md): where it applies (ISO 3166-1 countries, ISO 3166-2 subdivisions or `*`)
 * and what it demands there. Every field but `regions` is optional: an absent field demands nothing.
 */
export interface PolicyRule {
  regions: string[];
  /** verification is required there (false demands nothing: it never lifts a requirement set elsewhere) */
  required?: boolean;
  /** the age to prove */
  ageThreshold?: number;
  /** the only challenges allowed */
  challenges?: ChallengeName[];
  /** a pass below this level does not complete the flow */
  minimumAssuranceLevel?: AssuranceLevel;
  /** years an estimated age must exceed the threshold by (estimation methods only) */
  estimationBuffer?: number;
  /** how old a reused result may be; 0 = a new check at each access */
  reuseMaxAgeSeconds?: number;
  /** at least one double-anonymity method must be offered, and it comes first */
  requireDoubleAnonymity?: boolean;
  /** challenges allowed only until the end of a date (UTC, YYYY-MM-DD) */
  challengesUntil?: Partial<Record<ChallengeName, string>>;
}

/** Why a rule applies: a preset the operator put in force, or one of the website's own rules (by its index). */
export type RuleOrigin =
  | { kind: 'preset'; preset: string; version: string; rule: number }
  | { kind: 'website'; rule: number };

/** The rule in force for one (website, region): every field resolved, and the rules it came from. */
export interface EffectiveRule {
  required: boolean;
  ageThreshold: number;
  /** null: no rule narrows the website's own challenges */
  challenges: ChallengeName[] | null;
  minimumAssuranceLevel: AssuranceLevel;
  estimationBuffer: number;
  /** null: no rule limits reuse beyond the operator's proof lifetime */
  reuseMaxAgeSeconds: number | null;
  requireDoubleAnonymity: boolean;
  challengesUntil: Partial<Record<ChallengeName, string>>;
  origins: RuleOrigin[];
}

export const levelRank = (level: AssuranceLevel): number => ASSURANCE_LEVELS.indexOf(level);

/**
 * How specifically a rule's regions name a location: 2 its subdivision, 1 its country, 0 `*`, -1 not at all. A
 * subdivision rule applies only where the subdivision is known (docs/decisions/policy.md "Policy rules and unknown subdivisions").
 */
export function specificity(regions: readonly string[], location: Location): number {
  if (location.subdivision !== null && regions.includes(location.subdivision)) return 2;
  if (location.country !== 'ZZ' && regions.includes(location.country)) return 1;
  return regions.includes(EVERYWHERE) ? 0 : -1;
}

/** A named, versioned set of rules: a preset the operator puts in force (lib/policy/presets). */
export interface RuleSet {
  id: string;
  version: string;
  rules: readonly PolicyRule[];
}
