import type { ChallengeServices } from '../../services.js';
import { checkCsrfToken } from '../../../http/csrf.js';
import { verdict, type Challenge, type StepContext, type ChallengeModule } from '../../challenge.js';
import { attemptLimit } from '../attempts.js';
import { orUnavailable } from '../vendors/steps.js';
import type { FaceAgeEstimator, FaceEstimate } from './estimator.js';
import { selfieSettings, type SelfieSettings, type SelfieSetup } from './settings.js';
import { yotiFaceAgeEstimator } from './yoti.js';
import { MAX_IMAGE_BYTES, readSelfieForm } from './upload.js';

type Verdict = 'pass' | 'under-age' | 'too-close' | 'spoof' | 'retake';

/**
 * Challenge 25: only a confident estimate of a live face at least `threshold + buffer` passes, the buffer being the
 * operator's SELFIE_AGE_BUFFER or the policy's estimation buffer, whichever is larger. An estimate the operator's
 * buffer would pass but the policy's does not is `too-close`: the visitor is offered the methods that verify.
 */
export function judge(estimate: FaceEstimate, threshold: number, settings: SelfieSettings, policyBuffer = 0): Verdict {
  if (estimate.kind === 'unusable') return 'retake';
  if (estimate.liveness === 'fake') return 'spoof';
  if (estimate.liveness === 'undetermined' || estimate.stDev > settings.maxStDev) return 'retake';
  if (estimate.age >= threshold + Math.max(settings.ageBuffer, policyBuffer)) return 'pass';
  return estimate.age >= threshold + settings.ageBuffer ? 'too-close' : 'under-age';
}

/** Facial age estimation: one still image, sent to the vendor and dropped. Loads when a selfie vendor is configured. */
export const selfieModule: ChallengeModule<SelfieSetup> = {
  name: 'selfie',
  settings: selfieSettings,
  configure(runtime, setup) {
    if (!setup) return undefined;
    const { settings, yoti } = setup;
    return selfieChallenge(
      runtime,
      settings,
      yotiFaceAgeEstimator(yoti, { timeoutMs: settings.timeoutMs, log: runtime.log }),
    );
  },
};

export function selfieChallenge(
  runtime: ChallengeServices,
  settings: SelfieSettings,
  estimator: FaceAgeEstimator,
): Challenge {
  const attempts = attemptLimit(runtime, 'selfie');

  const page = (context: StepContext, error?: string, status = 200): void =>
    context.render(
      'challenges/selfie.njk',
      {
        captureUrl: context.stepUrl('capture'),
        vendor: estimator.label,
        minimumAge: context.attempt.ageThreshold + Math.max(settings.ageBuffer, context.attempt.estimationBuffer),
        maxMegabytes: (MAX_IMAGE_BYTES / 1_000_000).toFixed(1),
        error: error ? context.t(error) : undefined,
      },
      status,
    );

  async function capture(context: StepContext): Promise<void> {
    const form = await readSelfieForm(context.koa, context.t('challenges.selfie.error.tooLarge'));
    checkCsrfToken(context.koa, form.fields._csrf);
    if (form.fields.consent !== 'yes') return page(context, 'challenges.selfie.error.consent', 400);
    if (!form.image) return page(context, 'challenges.selfie.error.noImage', 400);
    await attempts.spend(context);
    const image = form.image;
    const estimate = await orUnavailable(context, () => estimator.estimate(image));
    if (!estimate) return;
    const judged = judge(estimate, context.attempt.ageThreshold, settings, context.attempt.estimationBuffer);
    if (judged === 'retake') return page(context, 'challenges.selfie.error.retake', 422);
    if (judged === 'too-close') return context.finish({ passed: false, reason: 'estimate_too_close' });
    await context.finish(verdict(judged === 'pass', settings.assuranceLevel));
  }

  return {
    name: 'selfie',
    vendor: estimator.vendor,
    free: settings.free,
    assuranceLevel: settings.assuranceLevel,
    steps: { start: { GET: page }, capture: { POST: capture } },
  };
}
