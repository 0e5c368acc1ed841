import type { Context } from 'koa';
import { requireCsrf } from '../../../http/csrf.js';
import { HttpError } from '../../../http/errors.js';
import type { Runtime } from '../../../runtime.js';
import type { ChallengeName, ChallengeOutcome, StepContext } from '../../challenge.js';
import type { ChallengeBasics } from './settings.js';
import { VendorUnavailableError } from './http.js';

/** Checks the form token of a body this challenge parsed itself (the router's parser leaves multipart alone). */
export async function checkCsrf(ctx: Context, fields: Record<string, string>): Promise<void> {
  ctx.request.body = fields;
  await requireCsrf(ctx, async () => {});
}

/** An unknown step, or a known step with the wrong method (the interface: unknown steps are 404). */
export const unknownStep = (): HttpError => new HttpError(404, 'Not Found');

/**
 * Runs a vendor call; when the vendor is down the challenge ends as `unavailable`, which brings the visitor back to
 * the choice of challenges with a message in their language. Returns undefined in that case.
 */
export async function orUnavailable<T>(context: StepContext, call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof VendorUnavailableError)) throw error;
    await context.finish({ passed: false, reason: 'unavailable' });
    return undefined;
  }
}

/** Logs at start-up that a challenge is active, with its vendor, level and free flag (never a credential). */
export function announce(runtime: Runtime, name: ChallengeName, vendor: string, settings: ChallengeBasics): void {
  runtime.log.info('challenge active', { challenge: name, vendor, assuranceLevel: settings.assuranceLevel, free: settings.free });
}

/** Logs how a vendor challenge ended, with nothing about the visitor but the interaction. */
export async function finishWith(context: StepContext, name: string, outcome: ChallengeOutcome): Promise<void> {
  context.runtime.log.info('challenge ended', { challenge: name, uid: context.attempt.uid, result: outcome.passed ? 'passed' : outcome.reason });
  await context.finish(outcome);
}
