import { expect } from 'chai';
import { effectiveRule } from '../../lib/policy/effective.js';
import { offeredChallenges } from '../../lib/policy/offer.js';
import type { PolicyRule } from '../../lib/policy/rule.js';
import type { AssuranceLevel, ChallengeName } from '../../lib/verification/challenge.js';

// Which challenges a rule lets a visitor take, and in which order.

const ruleOf = (rule: Omit<PolicyRule, 'regions'>) =>
  effectiveRule(
    { baselineThreshold: 18, regions: [], presets: [], rules: [{ regions: ['*'], ...rule }] },
    { country: 'FR', subdivision: null },
  );
const LEVELS: Partial<Record<ChallengeName, AssuranceLevel>> = {
  selfie: 'ENHANCED',
  email_age: 'STANDARD',
  credit_card: 'STANDARD',
  ticket: 'STRICT',
  eu_av: 'ENHANCED',
};
const live = { today: '2026-11-26', levelOf: (name: ChallengeName) => LEVELS[name] };
const sandbox = { today: '2026-11-26', levelOf: () => undefined };
const AVAILABLE: ChallengeName[] = ['selfie', 'email_age', 'credit_card', 'ticket', 'eu_av'];

describe('policy: the challenges offered under a rule', () => {
  it('offers everything available, in order, when the rule asks nothing', () => {
    expect(offeredChallenges(ruleOf({}), AVAILABLE, live)).to.deep.equal(AVAILABLE);
  });

  it('keeps only the allowed challenges, never adding one that is not available', () => {
    expect(offeredChallenges(ruleOf({ challenges: ['ticket', 'pleenk', 'selfie'] }), AVAILABLE, live)).to.deep.equal([
      'selfie',
      'ticket',
    ]);
  });

  it('drops a challenge after its last day, and keeps it on that day', () => {
    expect(
      offeredChallenges(ruleOf({ challengesUntil: { credit_card: '2026-11-25' } }), AVAILABLE, live),
    ).to.not.include('credit_card');
    expect(offeredChallenges(ruleOf({ challengesUntil: { credit_card: '2026-11-26' } }), AVAILABLE, live)).to.include(
      'credit_card',
    );
  });

  it("drops the live challenges that cannot reach the minimum level, but not the sandbox's, where the visitor picks the level", () => {
    expect(offeredChallenges(ruleOf({ minimumAssuranceLevel: 'ENHANCED' }), AVAILABLE, live)).to.deep.equal([
      'selfie',
      'ticket',
      'eu_av',
    ]);
    expect(offeredChallenges(ruleOf({ minimumAssuranceLevel: 'STRICT' }), AVAILABLE, sandbox)).to.deep.equal(AVAILABLE);
  });

  it('puts the double-anonymity methods first when the rule requires one', () => {
    expect(offeredChallenges(ruleOf({ requireDoubleAnonymity: true }), AVAILABLE, live)).to.deep.equal([
      'ticket',
      'eu_av',
      'selfie',
      'email_age',
      'credit_card',
    ]);
  });

  it('offers nothing when it requires a double-anonymity method and none is available: the rule cannot be met', () => {
    expect(offeredChallenges(ruleOf({ requireDoubleAnonymity: true }), ['selfie', 'credit_card'], live)).to.deep.equal(
      [],
    );
  });
});
