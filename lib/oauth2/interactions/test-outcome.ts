import { testLocation } from '../../geo/codes.js';
import { countFlow, endWithError, handOverNew } from './outcome.js';
import type { Visit } from './visit.js';

/**
 * A TEST client's `test_outcome` skips every page (ARCHITECTURE §6.1): `pass` records a sandbox verification with
 * test_level, test_country and test_subdivision (else STANDARD and the geo location) and returns a code; `refuse`
 * returns access_denied. The authorization endpoint accepts these parameters from TEST clients only.
 */
export async function runTestOutcome(visit: Visit): Promise<void> {
  const { test_outcome: outcome, test_level: level, test_country: country, test_subdivision: subdivision } = visit.params;
  if (outcome === 'refuse') {
    countFlow(visit, 'refused', 'sandbox');
    return endWithError(visit, 'access_denied', 'the sandbox refused the verification (test_outcome=refuse)');
  }
  const givenCountry = country ?? subdivision?.slice(0, 2);
  // The authorization endpoint already refused a location testLocation refuses (request-parameters.ts).
  const named = givenCountry ? testLocation(givenCountry, subdivision) : undefined;
  const location = typeof named === 'object' ? named : undefined;
  await handOverNew(visit, { method: 'sandbox', assuranceLevel: level ?? 'STANDARD', location, reused: false });
}
