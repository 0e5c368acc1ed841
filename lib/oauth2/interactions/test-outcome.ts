import { testLocation } from '../../geo/codes.js';
import { reachesLevel } from '../../policy/offer.js';
import { countFlow, endWithError, handOverNew, locateVisitor } from './outcome.js';
import type { Visit } from './visit.js';

/**
 * A TEST client's `test_outcome` skips every page: `pass` records a sandbox verification with
 * test_level, test_country and test_subdivision (else STANDARD and the geo location) and returns a code; `refuse`
 * returns access_denied. The authorization endpoint accepts these parameters from TEST clients only. A pass below the
 * minimum level the website's policy asks where the visitor is gets no code either (docs/policies.md), so integrators
 * can test their policy.
 */
export async function runTestOutcome(visit: Visit): Promise<void> {
  const {
    test_outcome: outcome,
    test_level: level,
    test_country: country,
    test_subdivision: subdivision,
  } = visit.params;
  if (outcome === 'refuse') {
    countFlow(visit, 'refused', 'sandbox');
    return endWithError(visit, 'access_denied', 'the sandbox refused the verification (test_outcome=refuse)', {
      outcome: 'refused',
      challenge: 'sandbox',
    });
  }
  const givenCountry = country ?? subdivision?.slice(0, 2);
  // The authorization endpoint already refused a location testLocation refuses (request-parameters.ts).
  const named = givenCountry ? testLocation(givenCountry, subdivision) : undefined;
  const location = typeof named === 'object' ? named : undefined;
  const assuranceLevel = level ?? 'STANDARD';
  const { rule } = await locateVisitor(visit, location);
  if (!reachesLevel(rule, assuranceLevel)) {
    return endWithError(
      visit,
      'access_denied',
      `the sandbox's level ${assuranceLevel} is below ${rule.minimumAssuranceLevel}, the minimum assurance level the website's policy requires here (test_level)`,
      { outcome: 'refused', challenge: 'sandbox' },
    );
  }
  await handOverNew(visit, { challenge: 'sandbox', assuranceLevel, location, reused: false });
}
