import type { GeoResolver, Location } from '../geo/location.js';
import type { Clock } from '../clock.js';
import type { GeoSettings } from '../geo/settings.js';
import type { ChallengeRegistry } from '../verification/challenge.js';
import type { AssuranceLevel, ChallengeName, Environment } from '../verification/challenge.js';
import { challengesUnder } from './offer.js';
import { effectiveRule, locationOfRegion, operatorRule } from './effective.js';
import { EVERYWHERE, type EffectiveRule, type PolicyRule } from './rule.js';
import type { PolicySettings } from './settings.js';

/** What a website brings to its policy: the spec's `regions` and its own rules (both read with the website). */
export interface WebsitePolicyInputs {
  regions: readonly string[];
  policyRules: readonly PolicyRule[];
}

/** What the operator sets for every website: the presets in force, the ages per region, and where a visitor is. */
export interface PolicyOperator {
  config: { readonly policies: PolicySettings; readonly geo: GeoSettings };
  geo: Pick<GeoResolver, 'ageThresholdFor'>;
}

/** What a requirement is computed from: the operator's settings, the challenges on offer, and the time. */
export interface PolicyServices extends PolicyOperator {
  readonly challenges: ChallengeRegistry;
  clock: Clock;
}

/** The rule in force for `website` where the visitor is: the operator's settings, the presets in force, the website's rules. */
export function websiteRule(
  { config, geo }: PolicyOperator,
  website: WebsitePolicyInputs,
  location: Location,
): EffectiveRule {
  return effectiveRule(
    {
      baselineThreshold: geo.ageThresholdFor(location),
      regions: website.regions,
      presets: config.policies.presets,
      rules: website.policyRules,
    },
    location,
  );
}

/**
 * What a website's page may learn before a check: must this visitor verify, where the visitor is, and how. The one
 * owner of this answer's JSON, which GET /v1/requirement sends as it is and the checker script with the website's own
 * fields added.
 */
export interface Requirement {
  required: boolean;
  country: string;
  country_subdivision: string | null;
  age_threshold: number;
  /** the methods this visitor would be offered, in order */
  challenges: ChallengeName[];
  minimum_assurance_level: AssuranceLevel;
}

/** The requirement for a visitor at `location` of a website, by its rule in force there (docs/policies.md). */
export function requirementAt(
  runtime: PolicyServices,
  website: WebsitePolicyInputs & { challenges: readonly string[] },
  environment: Environment,
  location: Location,
): Requirement {
  const rule = websiteRule(runtime, website, location);
  return {
    required: rule.required,
    country: location.country,
    country_subdivision: location.subdivision,
    age_threshold: rule.ageThreshold,
    challenges: challengesUnder(
      rule,
      runtime.challenges,
      environment,
      website.challenges,
      undefined,
      runtime.clock.now(),
    ),
    minimum_assurance_level: rule.minimumAssuranceLevel,
  };
}

/** The operator's rule in `region` (a rule's region, `*` included): the floor a website's rule for it may not lower. */
export function operatorFloor({ config, geo }: PolicyOperator, region: string): EffectiveRule {
  const location = locationOfRegion(region);
  return operatorRule(geo.ageThresholdFor(location), config.policies.presets, location);
}

/**
 * Every region named anywhere a website's policy comes from, `*` first, then in code order: the spec's regions, the
 * website's rules, the presets in force and the operator's ages per region.
 */
export function regionsNamed({ config }: PolicyOperator, website: WebsitePolicyInputs): string[] {
  const named = new Set([
    ...website.regions,
    ...website.policyRules.flatMap((rule) => rule.regions),
    ...config.policies.presets.flatMap((preset) => preset.rules.flatMap((rule) => rule.regions)),
    ...Object.keys(config.geo.ageThresholds),
  ]);
  named.delete(EVERYWHERE);
  return [EVERYWHERE, ...[...named].sort()];
}
