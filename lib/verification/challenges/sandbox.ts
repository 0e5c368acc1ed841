import {
  ASSURANCE_LEVELS,
  type AssuranceLevel,
  type Challenge,
  type ChallengeName,
  type StepContext,
} from '../challenge.js';
import { CSRF_FIELD, compileSchema, readForm } from '../../http/form.js';
import { testLocation } from '../../geo/codes.js';

/** What the visitor picks on the sandbox page; the same fields a TEST client may send as test_* parameters. */
export interface SandboxChoice {
  outcome: 'pass' | 'refuse';
  level: AssuranceLevel;
  country: string;
  subdivision: string | null;
}

interface SandboxForm {
  _csrf: string;
  outcome: 'pass' | 'refuse';
  level: AssuranceLevel;
  country: string;
  subdivision: string;
}

const validateSandboxForm = compileSchema<SandboxForm>({
  type: 'object',
  additionalProperties: false,
  required: ['_csrf', 'outcome', 'level', 'country', 'subdivision'],
  properties: {
    ...CSRF_FIELD,
    outcome: { type: 'string', enum: ['pass', 'refuse'] },
    level: { type: 'string', enum: [...ASSURANCE_LEVELS] },
    country: { type: 'string', maxLength: 10 },
    subdivision: { type: 'string', maxLength: 10 },
  },
});

/**
 * The TEST environment's stand-in for `simulated`: no third party is called; the visitor
 * picks the outcome, the assurance level and where they are. The verification's method stays `simulated`.
 */
export function sandboxChallenge(simulated: ChallengeName, proposedLevel: AssuranceLevel): Challenge {
  const showForm = async (context: StepContext, choice?: Partial<SandboxChoice>, error?: string): Promise<void> => {
    const located = await context.runtime.geo.locate(context.koa);
    context.render(
      'challenges/sandbox.njk',
      {
        action: context.stepUrl('submit'),
        simulated,
        levels: ASSURANCE_LEVELS,
        choice: {
          outcome: 'pass',
          level: proposedLevel,
          country: located.country,
          subdivision: located.subdivision ?? '',
          ...choice,
        },
        error,
      },
      error ? 422 : 200,
    );
  };

  return {
    name: simulated,
    free: true,
    assuranceLevel: proposedLevel,
    steps: { start: { GET: (context) => showForm(context) }, submit: { POST: submit } },
  };

  async function submit(context: StepContext): Promise<void> {
    const form = readForm(context.koa, validateSandboxForm);
    if (!form) return showForm(context, undefined, context.t('challenges.sandbox.error.form'));
    if (form.outcome === 'refuse') return context.finish({ passed: false, reason: 'refused' });
    const location = testLocation(form.country, form.subdivision);
    if (typeof location === 'string') return showForm(context, form, context.t('challenges.sandbox.error.location'));
    await context.finish({ passed: true, assuranceLevel: form.level, location });
  }
}
