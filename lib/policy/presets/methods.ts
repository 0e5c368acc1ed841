import type { ChallengeName } from '../../verification/challenge.js';

/**
 * Every challenge that verifies rather than estimates (the catalogue's `estimation` facts), written out: a preset is
 * versioned data, and a challenge added later must not join a regime's list until someone reads the law for it.
 */
export const VERIFICATION_METHODS: ChallengeName[] = [
  'credit_card',
  'ticket',
  'anonymage',
  'pleenk',
  'paypal',
  'agego',
  'agekey',
  'eu_av',
];
