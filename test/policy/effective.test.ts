import { expect } from 'chai';
import fc from 'fast-check';
import type { Location } from '../../lib/geo/location.js';
import { isVerificationRequired } from '../../lib/geo/regions.js';
import {
  applicableRules,
  effectiveRule,
  locationOfRegion,
  loosenedField,
  operatorRule,
  type PolicyInputs,
} from '../../lib/policy/effective.js';
import { levelRank, type EffectiveRule, type PolicyRule, type RuleSet } from '../../lib/policy/rule.js';
import { ASSURANCE_LEVELS, CHALLENGE_NAMES, type ChallengeName } from '../../lib/verification/challenge.js';

// The effective rule for (website, region) as properties over random presets, website rules and locations.

const REGIONS = ['*', 'FR', 'DE', 'US', 'US-TX', 'US-CA'];
const LOCATIONS: Location[] = [
  { country: 'FR', subdivision: null },
  { country: 'FR', subdivision: 'FR-IDF' },
  { country: 'DE', subdivision: null },
  { country: 'US', subdivision: null },
  { country: 'US', subdivision: 'US-TX' },
  { country: 'US', subdivision: 'US-CA' },
  { country: 'ZZ', subdivision: null },
];
const DATES = ['2025-12-31', '2026-06-30', '2026-12-31', '2027-12-31'];

const location = fc.constantFrom(...LOCATIONS);
const challenges = fc.uniqueArray(fc.constantFrom(...CHALLENGE_NAMES), { minLength: 1, maxLength: 4 });
const rule: fc.Arbitrary<PolicyRule> = fc.record(
  {
    regions: fc.uniqueArray(fc.constantFrom(...REGIONS), { minLength: 1, maxLength: 3 }),
    required: fc.boolean(),
    ageThreshold: fc.integer({ min: 13, max: 25 }),
    challenges,
    minimumAssuranceLevel: fc.constantFrom(...ASSURANCE_LEVELS),
    estimationBuffer: fc.integer({ min: 0, max: 10 }),
    reuseMaxAgeSeconds: fc.integer({ min: 0, max: 86400 }),
    requireDoubleAnonymity: fc.boolean(),
    challengesUntil: fc.dictionary(fc.constantFrom(...CHALLENGE_NAMES), fc.constantFrom(...DATES), {
      maxKeys: 2,
    }) as fc.Arbitrary<PolicyRule['challengesUntil']>,
  },
  { requiredKeys: ['regions'] },
);
const ruleSet = (id: string): fc.Arbitrary<RuleSet> =>
  fc.record({ id: fc.constant(id), version: fc.constant('1'), rules: fc.array(rule, { maxLength: 4 }) });
const inputs: fc.Arbitrary<PolicyInputs> = fc.record({
  baselineThreshold: fc.integer({ min: 13, max: 25 }),
  regions: fc.uniqueArray(fc.constantFrom('FR', 'DE', 'US', 'US-TX'), { maxLength: 2 }),
  presets: fc.tuple(ruleSet('a'), ruleSet('b')).map(([a, b]) => [a, b]),
  rules: fc.array(rule, { maxLength: 4 }),
});

/** The result demands at least what `rule` demands. */
function honours(result: EffectiveRule, demand: PolicyRule): boolean {
  const allowed = demand.challenges;
  return (
    (!demand.required || result.required) &&
    result.ageThreshold >= (demand.ageThreshold ?? 0) &&
    (allowed === undefined ||
      (result.challenges !== null && result.challenges.every((name) => allowed.includes(name)))) &&
    (demand.minimumAssuranceLevel === undefined ||
      levelRank(result.minimumAssuranceLevel) >= levelRank(demand.minimumAssuranceLevel)) &&
    result.estimationBuffer >= (demand.estimationBuffer ?? 0) &&
    (demand.reuseMaxAgeSeconds === undefined ||
      (result.reuseMaxAgeSeconds !== null && result.reuseMaxAgeSeconds <= demand.reuseMaxAgeSeconds)) &&
    (!demand.requireDoubleAnonymity || result.requireDoubleAnonymity) &&
    Object.entries(demand.challengesUntil ?? {}).every(
      ([name, date]) => (result.challengesUntil[name as ChallengeName] ?? '9999') <= date,
    )
  );
}

/** `a` is at least as strict as `b` in every field. */
function atLeastAsTight(a: EffectiveRule, b: EffectiveRule): boolean {
  return honours(a, {
    regions: ['*'],
    required: b.required,
    ageThreshold: b.ageThreshold,
    ...(b.challenges ? { challenges: b.challenges } : {}),
    minimumAssuranceLevel: b.minimumAssuranceLevel,
    estimationBuffer: b.estimationBuffer,
    ...(b.reuseMaxAgeSeconds !== null ? { reuseMaxAgeSeconds: b.reuseMaxAgeSeconds } : {}),
    requireDoubleAnonymity: b.requireDoubleAnonymity,
    challengesUntil: b.challengesUntil,
  });
}

/** `rule` with each field of `extra` made stricter where `extra` sets it. */
function tightened(base: PolicyRule, extra: PolicyRule): PolicyRule {
  const stricter: PolicyRule = { ...base };
  if (extra.required) stricter.required = true;
  if (extra.ageThreshold !== undefined) stricter.ageThreshold = Math.max(base.ageThreshold ?? 0, extra.ageThreshold);
  if (extra.challenges)
    stricter.challenges = base.challenges
      ? base.challenges.filter((name) => extra.challenges!.includes(name))
      : extra.challenges;
  if (
    extra.minimumAssuranceLevel &&
    (!base.minimumAssuranceLevel || levelRank(extra.minimumAssuranceLevel) > levelRank(base.minimumAssuranceLevel))
  ) {
    stricter.minimumAssuranceLevel = extra.minimumAssuranceLevel;
  }
  if (extra.estimationBuffer !== undefined)
    stricter.estimationBuffer = Math.max(base.estimationBuffer ?? 0, extra.estimationBuffer);
  if (extra.reuseMaxAgeSeconds !== undefined)
    stricter.reuseMaxAgeSeconds = Math.min(base.reuseMaxAgeSeconds ?? Infinity, extra.reuseMaxAgeSeconds);
  if (extra.requireDoubleAnonymity) stricter.requireDoubleAnonymity = true;
  return stricter;
}

const RUNS = { numRuns: 500 };

describe('policy: the effective rule', () => {
  it("is exactly today's behaviour without presets and own rules", () => {
    fc.assert(
      fc.property(inputs, location, (given, where) => {
        const result = effectiveRule({ ...given, presets: [], rules: [] }, where);
        expect(result).to.deep.equal({
          required: isVerificationRequired(given.regions, where),
          ageThreshold: given.baselineThreshold,
          challenges: null,
          minimumAssuranceLevel: 'STANDARD',
          estimationBuffer: 0,
          reuseMaxAgeSeconds: null,
          requireDoubleAnonymity: false,
          challengesUntil: {},
          origins: [],
        });
      }),
      RUNS,
    );
  });

  it('is never looser than the baseline, the spec regions or any rule that applies, and names each of them', () => {
    fc.assert(
      fc.property(inputs, location, (given, where) => {
        const result = effectiveRule(given, where);
        expect(result.ageThreshold).to.be.at.least(given.baselineThreshold);
        if (isVerificationRequired(given.regions, where)) expect(result.required).to.equal(true);
        const sets = [...given.presets.map((preset) => preset.rules), given.rules];
        for (const rules of sets) {
          for (const index of applicableRules(rules, where))
            expect(honours(result, rules[index]!), JSON.stringify(rules[index])).to.equal(true);
        }
        expect(result.origins).to.have.length(
          sets.reduce((count, rules) => count + applicableRules(rules, where).length, 0),
        );
      }),
      RUNS,
    );
  });

  it('only tightens when a rule is made stricter, a rule is added to the presets or a preset is put in force', () => {
    fc.assert(
      fc.property(inputs, location, fc.nat(), rule, ruleSet('c'), (given, where, pick, extra, added) => {
        const before = effectiveRule(given, where);
        const presetIndex = pick % given.presets.length;
        const preset = given.presets[presetIndex]!;
        const stricterPresets = given.presets.map((candidate, index) =>
          index !== presetIndex || candidate.rules.length === 0
            ? candidate
            : {
                ...candidate,
                rules: candidate.rules.map((one, at) =>
                  at === pick % candidate.rules.length ? tightened(one, extra) : one,
                ),
              },
        );
        const stricterRules = given.rules.map((one, at) =>
          at === pick % Math.max(1, given.rules.length) ? tightened(one, extra) : one,
        );
        expect(
          atLeastAsTight(effectiveRule({ ...given, presets: stricterPresets }, where), before),
          'a preset rule tightened',
        ).to.equal(true);
        expect(
          atLeastAsTight(effectiveRule({ ...given, rules: stricterRules }, where), before),
          'a website rule tightened',
        ).to.equal(true);
        expect(
          atLeastAsTight(effectiveRule({ ...given, presets: [...given.presets, added] }, where), before),
          'a preset added',
        ).to.equal(true);
        const withRule = given.presets.map((candidate) =>
          candidate === preset
            ? { ...candidate, rules: [...candidate.rules, { ...extra, regions: ['*'] }] }
            : candidate,
        );
        // A `*` rule added to a set tightens wherever that set had no rule, and changes nothing where it had a more specific one.
        expect(
          atLeastAsTight(effectiveRule({ ...given, presets: withRule }, where), before),
          'a preset rule added',
        ).to.equal(true);
      }),
      RUNS,
    );
  });

  it('prefers, within one set of rules, a subdivision to its country and a country to `*`', () => {
    fc.assert(
      fc.property(inputs, rule, rule, rule, (given, everywhere, country, subdivision) => {
        const texas: Location = { country: 'US', subdivision: 'US-TX' };
        const rules = [
          { ...everywhere, regions: ['*'] },
          { ...country, regions: ['US'] },
          { ...subdivision, regions: ['US-TX'] },
        ];
        const bySubdivision = effectiveRule({ ...given, rules: [rules[2]!] }, texas);
        expect(effectiveRule({ ...given, rules }, texas)).to.deep.equal({
          ...bySubdivision,
          origins: bySubdivision.origins.map((origin) => (origin.kind === 'website' ? { ...origin, rule: 2 } : origin)),
        });
        const california: Location = { country: 'US', subdivision: 'US-CA' };
        const byCountry = effectiveRule({ ...given, rules: [rules[1]!] }, california);
        expect(effectiveRule({ ...given, rules }, california)).to.deep.equal({
          ...byCountry,
          origins: byCountry.origins.map((origin) => (origin.kind === 'website' ? { ...origin, rule: 1 } : origin)),
        });
        const germany: Location = { country: 'DE', subdivision: null };
        expect(effectiveRule({ ...given, rules }, germany)).to.deep.equal(
          effectiveRule({ ...given, rules: [rules[0]!] }, germany),
        );
      }),
      RUNS,
    );
  });

  it('accepts a website rule only when it is honoured exactly where it names, and names a looser field otherwise', () => {
    fc.assert(
      fc.property(inputs, rule, (given, own) => {
        const region = own.regions[0]!;
        const where = locationOfRegion(region);
        const floor = operatorRule(given.baselineThreshold, given.presets, where);
        const single = { ...own, regions: [region] };
        const field = loosenedField(single, floor);
        if (field === undefined) {
          const result = effectiveRule({ ...given, regions: ['ZZ'], rules: [single] }, where);
          if (single.required) expect(result.required).to.equal(true);
          if (single.ageThreshold !== undefined) expect(result.ageThreshold).to.equal(single.ageThreshold);
          if (single.challenges) expect(result.challenges).to.have.members(single.challenges);
          if (single.minimumAssuranceLevel) expect(result.minimumAssuranceLevel).to.equal(single.minimumAssuranceLevel);
          if (single.reuseMaxAgeSeconds !== undefined)
            expect(result.reuseMaxAgeSeconds).to.equal(single.reuseMaxAgeSeconds);
          if (single.estimationBuffer !== undefined) expect(result.estimationBuffer).to.equal(single.estimationBuffer);
          for (const [name, date] of Object.entries(single.challengesUntil ?? {})) {
            if (!single.challenges || single.challenges.includes(name as ChallengeName))
              expect(result.challengesUntil[name as ChallengeName]).to.equal(date);
          }
        } else {
          const [key, sub] = field.split('.') as [keyof PolicyRule, string | undefined];
          expect(single[key], field).to.not.equal(undefined);
          // The floor with that one field as the rule says is looser than the floor itself.
          const asRuled = sub
            ? {
                ...floor,
                challengesUntil: { ...floor.challengesUntil, [sub]: single.challengesUntil![sub as ChallengeName] },
              }
            : { ...floor, [key]: single[key] };
          expect(atLeastAsTight(asRuled, floor), field).to.equal(false);
        }
      }),
      RUNS,
    );
  });

  it('lets a rule naming a subdivision apply only where the subdivision is known', () => {
    const rules: PolicyRule[] = [{ regions: ['US-TX'], ageThreshold: 21 }];
    const base = { baselineThreshold: 18, regions: [], presets: [] };
    expect(effectiveRule({ ...base, rules }, { country: 'US', subdivision: 'US-TX' }).ageThreshold).to.equal(21);
    expect(effectiveRule({ ...base, rules }, { country: 'US', subdivision: null }).ageThreshold).to.equal(18);
    expect(
      effectiveRule({ ...base, rules: [{ regions: ['*'], ageThreshold: 20 }] }, { country: 'ZZ', subdivision: null })
        .ageThreshold,
    ).to.equal(20);
  });
});
