import type { Location } from '../geo/location.js';
import { isVerificationRequired } from '../geo/regions.js';
import type { ChallengeName } from '../verification/challenge.js';
import {
  EVERYWHERE,
  levelRank,
  specificity,
  type EffectiveRule,
  type PolicyRule,
  type RuleOrigin,
  type RuleSet,
} from './rule.js';

/** What the rule for one (website, location) is made of. */
export interface PolicyInputs {
  /** the operator's age there (AGE_THRESHOLD, AGE_THRESHOLDS: lib/geo/thresholds.ts) */
  baselineThreshold: number;
  /** the website's spec `regions`: required there, or everywhere when empty */
  regions: readonly string[];
  /** the presets the operator put in force, each its own set of rules */
  presets: readonly RuleSet[];
  /** the website's own rules */
  rules: readonly PolicyRule[];
}

/** The indexes of a set's rules that apply at `location`: those naming it most specifically (subdivision, country, `*`). */
export function applicableRules(rules: readonly PolicyRule[], location: Location): number[] {
  const ranks = rules.map((rule) => specificity(rule.regions, location));
  const best = Math.max(-1, ...ranks);
  return best < 0 ? [] : ranks.flatMap((rank, index) => (rank === best ? [index] : []));
}

const earlier = (a: string | undefined, b: string): string => (a === undefined || b < a ? b : a);

/** `rule`'s demands added to `current`: each field keeps whichever of the two is stricter. */
function tighten(current: EffectiveRule, rule: PolicyRule, origin: RuleOrigin): EffectiveRule {
  const challengesUntil = { ...current.challengesUntil };
  for (const [name, date] of Object.entries(rule.challengesUntil ?? {}) as Array<[ChallengeName, string]>) {
    challengesUntil[name] = earlier(challengesUntil[name], date);
  }
  const narrowed = rule.challenges;
  return {
    required: current.required || rule.required === true,
    ageThreshold: Math.max(current.ageThreshold, rule.ageThreshold ?? 0),
    challenges:
      narrowed === undefined
        ? current.challenges
        : (current.challenges ?? narrowed).filter((name) => narrowed.includes(name)),
    minimumAssuranceLevel:
      rule.minimumAssuranceLevel && levelRank(rule.minimumAssuranceLevel) > levelRank(current.minimumAssuranceLevel)
        ? rule.minimumAssuranceLevel
        : current.minimumAssuranceLevel,
    estimationBuffer: Math.max(current.estimationBuffer, rule.estimationBuffer ?? 0),
    reuseMaxAgeSeconds:
      rule.reuseMaxAgeSeconds === undefined ||
      (current.reuseMaxAgeSeconds !== null && current.reuseMaxAgeSeconds <= rule.reuseMaxAgeSeconds)
        ? current.reuseMaxAgeSeconds
        : rule.reuseMaxAgeSeconds,
    requireDoubleAnonymity: current.requireDoubleAnonymity || rule.requireDoubleAnonymity === true,
    challengesUntil,
    origins: [...current.origins, origin],
  };
}

/** The operator's baseline where no rule applies: today's behaviour without any policy. */
const baseline = (ageThreshold: number, required: boolean): EffectiveRule => ({
  required,
  ageThreshold,
  challenges: null,
  minimumAssuranceLevel: 'STANDARD',
  estimationBuffer: 0,
  reuseMaxAgeSeconds: null,
  requireDoubleAnonymity: false,
  challengesUntil: {},
  origins: [],
});

/**
 * The operator's rule at a location: the baseline age, tightened by every preset in force. `required` starts as
 * given (the website's spec `regions` decide it; a floor for checking a website's rule starts from false).
 */
export function operatorRule(
  baselineThreshold: number,
  presets: readonly RuleSet[],
  location: Location,
  required = false,
): EffectiveRule {
  let result = baseline(baselineThreshold, required);
  for (const preset of presets) {
    for (const index of applicableRules(preset.rules, location)) {
      result = tighten(result, preset.rules[index]!, {
        kind: 'preset',
        preset: preset.id,
        version: preset.version,
        rule: index,
      });
    }
  }
  return result;
}

/**
 * The rule in force for a website at a location (docs/policies.md): the operator's baseline, tightened by every
 * preset in force and by the website's own rules. Within one set (a preset, or the website's rules) only the rules
 * naming the location most specifically apply; between sets, each field keeps the strictest value, so the result is
 * never looser than any rule that applies.
 */
export function effectiveRule(inputs: PolicyInputs, location: Location): EffectiveRule {
  let result = operatorRule(
    inputs.baselineThreshold,
    inputs.presets,
    location,
    isVerificationRequired(inputs.regions, location),
  );
  for (const index of applicableRules(inputs.rules, location))
    result = tighten(result, inputs.rules[index]!, { kind: 'website', rule: index });
  return result;
}

/** Where a rule's region is, as a location: `*` is the place no region names (an unknown country). */
export function locationOfRegion(region: string): Location {
  if (region === EVERYWHERE) return { country: 'ZZ', subdivision: null };
  return { country: region.slice(0, 2), subdivision: region.length > 2 ? region : null };
}

/**
 * The first field of `rule` that is looser than `floor` (the operator's rule where the website's rule applies), as
 * an API names it (`ageThreshold`, `challengesUntil.credit_card`), or undefined when the rule only tightens.
 */
export function loosenedField(rule: PolicyRule, floor: EffectiveRule): string | undefined {
  if (rule.required === false && floor.required) return 'required';
  if (rule.ageThreshold !== undefined && rule.ageThreshold < floor.ageThreshold) return 'ageThreshold';
  const allowed = floor.challenges;
  if (rule.challenges && allowed && rule.challenges.some((name) => !allowed.includes(name))) return 'challenges';
  if (rule.minimumAssuranceLevel && levelRank(rule.minimumAssuranceLevel) < levelRank(floor.minimumAssuranceLevel))
    return 'minimumAssuranceLevel';
  if (rule.estimationBuffer !== undefined && rule.estimationBuffer < floor.estimationBuffer) return 'estimationBuffer';
  if (
    rule.reuseMaxAgeSeconds !== undefined &&
    floor.reuseMaxAgeSeconds !== null &&
    rule.reuseMaxAgeSeconds > floor.reuseMaxAgeSeconds
  )
    return 'reuseMaxAgeSeconds';
  if (rule.requireDoubleAnonymity === false && floor.requireDoubleAnonymity) return 'requireDoubleAnonymity';
  for (const [name, date] of Object.entries(rule.challengesUntil ?? {}) as Array<[ChallengeName, string]>) {
    // A date for a challenge the rule itself leaves out allows nothing.
    const until = floor.challengesUntil[name];
    if (until !== undefined && date > until && (!rule.challenges || rule.challenges.includes(name)))
      return `challengesUntil.${name}`;
  }
  return undefined;
}
