import { EVERYWHERE, type PolicyRule } from './rule.js';

/**
 * Whether `rule` demands nothing where it applies: no field but its regions, or only `required: false` and
 * `requireDoubleAnonymity: false`, which never lift what the operator or the website's regions set.
 */
export function demandsNothing(rule: PolicyRule): boolean {
  return (
    rule.required !== true &&
    rule.requireDoubleAnonymity !== true &&
    rule.ageThreshold === undefined &&
    rule.challenges === undefined &&
    rule.minimumAssuranceLevel === undefined &&
    rule.estimationBuffer === undefined &&
    rule.reuseMaxAgeSeconds === undefined &&
    Object.keys(rule.challengesUntil ?? {}).length === 0
  );
}

/** Whether `others` name `region` less specifically: `*` for a country or a subdivision, its country for a subdivision. */
const namedMoreBroadly = (region: string, others: readonly PolicyRule[]): boolean =>
  region !== EVERYWHERE &&
  others.some(
    (other) => other.regions.includes(EVERYWHERE) || (region.length > 2 && other.regions.includes(region.slice(0, 2))),
  );

/**
 * The indexes of the rules that change nothing (docs/policies.md "A rule that changes nothing"): they demand nothing,
 * and none of their regions is named more broadly by a rule of the set that demands something. Such a rule with a
 * broader one does change something: where it names, only the most specific rules of the set apply, so it sets the
 * broader one aside there.
 */
export function idleRules(rules: readonly PolicyRule[]): number[] {
  const demanding = rules.filter((rule) => !demandsNothing(rule));
  return rules.flatMap((rule, index) =>
    demandsNothing(rule) && !rule.regions.some((region) => namedMoreBroadly(region, demanding)) ? [index] : [],
  );
}
