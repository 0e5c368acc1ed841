import type { Context } from 'koa';
import { cspOf } from '../../http/security-headers.js';
import { translator } from '../../i18n/catalogue.js';
import type {
  Challenge,
  ChallengeName,
  ChallengeOutcome,
  StepContext,
  StepMethod,
} from '../../verification/challenge.js';
import { HttpError } from '../../http/errors.js';
import { seeOther } from '../../http/see-other.js';
import { completeChallenge, countFlow, locateVisitor } from './outcome.js';
import { reachesLevel } from '../../policy/offer.js';
import { readyToVerify, renderPage } from './page.js';
import { challengeState } from './progress.js';
import type { Visit } from './visit.js';
import { VisitorError } from '../../http/visitor-errors.js';

const STEP_NAME = /^[a-z0-9_-]{1,40}$/;

/** Adds a challenge's own sources (e.g. a payment processor's script) to this response's CSP. */
function widenCsp(ctx: Context, challenge: Challenge): void {
  const csp = cspOf(ctx);
  for (const [directive, sources] of Object.entries(challenge.csp ?? {})) {
    csp[directive] = [...new Set([...(csp[directive] ?? []), ...(sources ?? [])])];
  }
}

/** Outcomes that count against the visitor's failed attempts; a cancelled or unavailable check does not. */
const FAILURES: ReadonlySet<string> = new Set(['refused', 'failed']);

async function stepContext(visit: Visit, challenge: Challenge): Promise<StepContext> {
  const { services, ctx } = visit;
  const { runtime, limits } = services;
  const name = challenge.name;
  const state = challengeState(runtime, visit, name);
  const { ageThreshold, rule } = await locateVisitor(visit);
  const attempt = {
    uid: visit.uid,
    environment: visit.environment,
    language: visit.language,
    ageThreshold,
    estimationBuffer: rule.estimationBuffer,
    website: { id: visit.client.website.id, name: visit.client.website.name, domain: visit.client.website.domain },
  };
  return {
    koa: ctx,
    runtime,
    attempt,
    t: translator(visit.language),
    state,
    stepUrl: (step) => visit.paths.step(name, step),
    render(template, variables = {}, status = 200) {
      widenCsp(ctx, challenge);
      renderPage(visit, template, { attempt, challengeName: name, ...variables }, status);
    },
    async finish(outcome: ChallengeOutcome) {
      // A pass below the policy's minimum level where the visitor is does not complete the flow (docs/policies.md).
      const short =
        outcome.passed && !reachesLevel((await locateVisitor(visit, outcome.location)).rule, outcome.assuranceLevel);
      runtime.log.info('challenge ended', {
        challenge: name,
        uid: visit.uid,
        result: outcome.passed ? (short ? 'below_minimum_level' : 'passed') : outcome.reason,
      });
      // A pass ends the challenge's state itself (completeChallenge).
      if (outcome.passed && !short) {
        return completeChallenge(visit, {
          challenge: name,
          assuranceLevel: outcome.assuranceLevel,
          location: outcome.location,
        });
      }
      await state.clear();
      if (outcome.passed) return seeOther(ctx, `${visit.paths.choose}?notice=level_too_low`);
      if (outcome.reason === 'refused') countFlow(visit, 'refused', name);
      if (FAILURES.has(outcome.reason)) {
        await limits.challengeFailuresPerInteraction.consume(visit.uid);
        await limits.challengeFailuresPerIp.consume(ctx.ip);
      }
      seeOther(ctx, `${visit.paths.choose}?notice=${outcome.notice ?? outcome.reason}`);
    },
  };
}

/**
 * GET|POST /v1/oauth2/interaction/:uid/challenge/:name/:step: runs one step of a challenge the visitor may take
 * here (the sandbox for TEST clients), with the StepContext of lib/verification/challenge.ts.
 */
export async function runChallengeStep(visit: Visit): Promise<void> {
  const { services, ctx } = visit;
  if (!readyToVerify(visit)) return;
  const name = String(ctx.params['name']) as ChallengeName;
  const step = String(ctx.params['step']);
  const challenge =
    visit.challenges.includes(name) && STEP_NAME.test(step)
      ? services.registry.resolve(visit.environment, name)
      : undefined;
  const handlers = challenge && Object.hasOwn(challenge.steps, step) ? challenge.steps[step] : undefined;
  if (!challenge || !handlers) throw new VisitorError('not_found', 404, { backUrl: visit.paths.choose });
  const handler = handlers[ctx.method === 'HEAD' ? 'GET' : (ctx.method as StepMethod)];
  if (!handler) throw new HttpError(405, 'Method Not Allowed', { Allow: Object.keys(handlers).join(', ') });
  countFlow(visit, 'chosen');
  await handler(await stepContext(visit, challenge));
}
