import { compileSchema, CSRF_FIELD, readForm } from '../../http/form.js';
import { seeOther } from '../../http/see-other.js';
import { countFlow, endWithError, failUnavailable } from './outcome.js';
import { landingOf, renderPage } from './page.js';
import { recordAcceptance } from './progress.js';
import { browserProof } from './reuse.js';
import { runTestOutcome } from './test-outcome.js';
import type { Visit } from './visit.js';
import { VisitorError } from '../../http/visitor-errors.js';

/**
 * Where oidc-provider sends the visitor. A TEST client's test_outcome skips every page; otherwise the authorization
 * prompt until the visitor accepts, then the landing page of the flow (or the result waiting to be handed over).
 */
export async function showEntry(visit: Visit): Promise<void> {
  const { ctx } = visit;
  countFlow(visit, 'started');
  if (visit.testOutcome) return runTestOutcome(visit);
  if (visit.progress.verificationUid) return seeOther(ctx, visit.paths.result);
  if (visit.progress.acceptedAt) return seeOther(ctx, landingOf(visit));
  // The checker entry can only end in a challenge or a reuse: with neither, say so before asking for consent.
  if (visit.flow === 'checker' && !visit.challenges.length && !(await browserProof(visit))) {
    return failUnavailable(visit);
  }
  renderPage(visit, 'interaction/prompt.njk');
}

interface ConsentForm {
  _csrf: string;
  decision: 'accept' | 'decline';
}

const validateConsent = compileSchema<ConsentForm>({
  type: 'object',
  additionalProperties: false,
  required: ['_csrf', 'decision'],
  properties: { ...CSRF_FIELD, decision: { type: 'string', enum: ['accept', 'decline'] } },
});

/** The prompt's answer: accept leads to the flow's landing page; decline returns access_denied to the website. */
export async function answerPrompt(visit: Visit): Promise<void> {
  const { services, ctx } = visit;
  const form = readForm(ctx, validateConsent);
  if (!form) throw new VisitorError('bad_request', 400, { backUrl: visit.paths.root });
  if (form.decision === 'decline') {
    countFlow(visit, 'abandoned');
    return endWithError(visit, 'access_denied', 'the visitor declined the authorization', { outcome: 'abandoned' });
  }
  const { db, clock } = services.runtime;
  if (await recordAcceptance(db, visit.uid, visit.expiresAt, clock.now())) countFlow(visit, 'accepted');
  seeOther(ctx, landingOf(visit));
}

/** "Cancel" on the landing pages: the visitor gives up; the website gets access_denied. */
export async function cancel(visit: Visit): Promise<void> {
  countFlow(visit, 'abandoned');
  await endWithError(visit, 'access_denied', 'the visitor cancelled the verification', { outcome: 'abandoned' });
}
