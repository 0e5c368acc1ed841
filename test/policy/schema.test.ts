import { expect } from 'chai';
import { policyUpdateSchema } from '../../lib/policy/schema.js';
import { Refusal } from '../../lib/refusal.js';
import { CHALLENGE_NAMES } from '../../lib/verification/challenge.js';
import { isEstimation, offersDoubleAnonymity } from '../../lib/verification/catalogue.js';
import { validator } from '../../lib/websites/validation.js';

// The one schema of a policy rule, as the API and the platform apply it, and the catalogue's facts it relies on.

const validate = validator<unknown>(policyUpdateSchema, 'body');

function refusal(body: unknown): string {
  try {
    validate(body);
  } catch (error) {
    expect(error).to.be.instanceOf(Refusal);
    expect((error as Refusal).kind).to.equal('invalid');
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('policy: the rule schema', () => {
  it('accepts the documented example and a rule with regions alone', () => {
    validate({
      rules: [
        {
          regions: ['FR'],
          required: true,
          ageThreshold: 18,
          challenges: ['eu_av', 'ticket'],
          minimumAssuranceLevel: 'ENHANCED',
          estimationBuffer: 5,
          reuseMaxAgeSeconds: 3600,
          requireDoubleAnonymity: true,
          challengesUntil: { credit_card: '2026-12-31' },
        },
      ],
    });
    validate({ rules: [{ regions: ['*', 'US-TX', 'GB', 'DE-BY'] }] });
    validate({ rules: [] });
  });

  const refused: Array<[string, unknown, string]> = [
    ['a rule without regions', { rules: [{ ageThreshold: 18 }] }, 'Missing required field "regions"'],
    ['an empty region list', { rules: [{ regions: [] }] }, 'Invalid rules[0].regions.'],
    ['an unknown country', { rules: [{ regions: ['QQ'] }] }, 'Invalid rules[0].regions[0].'],
    ['a lower-case country', { rules: [{ regions: ['fr'] }] }, 'Invalid rules[0].regions[0].'],
    ['a US state that does not exist', { rules: [{ regions: ['US-XX'] }] }, 'Invalid rules[0].regions[0].'],
    ['an age out of range', { rules: [{ regions: ['FR'], ageThreshold: 12 }] }, 'Invalid rules[0].ageThreshold.'],
    [
      'an unknown challenge',
      { rules: [{ regions: ['FR'], challenges: ['telepathy'] }] },
      'Invalid rules[0].challenges[0].',
    ],
    [
      'an unknown level',
      { rules: [{ regions: ['FR'], minimumAssuranceLevel: 'HIGH' }] },
      'Invalid rules[0].minimumAssuranceLevel.',
    ],
    [
      'a negative reuse',
      { rules: [{ regions: ['FR'], reuseMaxAgeSeconds: -1 }] },
      'Invalid rules[0].reuseMaxAgeSeconds.',
    ],
    [
      'a date that is not a day',
      { rules: [{ regions: ['FR'], challengesUntil: { credit_card: '2026-02-30' } }] },
      'Invalid rules[0].challengesUntil.credit_card.',
    ],
    [
      'a date for an unknown challenge',
      { rules: [{ regions: ['FR'], challengesUntil: { telepathy: '2026-02-03' } }] },
      'Invalid rules[0].challengesUntil.',
    ],
    ['an unknown field', { rules: [{ regions: ['FR'], loosen: true }] }, 'Unknown field "loosen"'],
  ];
  for (const [name, body, message] of refused) {
    it(`refuses ${name}, naming the field`, () => {
      expect(refusal(body)).to.contain(message);
    });
  }
});

describe('challenge catalogue: policy facts', () => {
  it('knows the estimation methods and the double-anonymity ones', () => {
    expect(CHALLENGE_NAMES.filter(isEstimation)).to.deep.equal(['selfie', 'email_age']);
    expect(CHALLENGE_NAMES.filter(offersDoubleAnonymity)).to.deep.equal(['ticket', 'anonymage', 'pleenk', 'eu_av']);
  });
});
