import { ASSURANCE_LEVELS, unknownStep, type AssuranceLevel, type Challenge, type ChallengeName, type StepContext } from '../challenge.js';
import { CSRF_FIELD, compileSchema, readForm } from '../../http/form.js';

/** What the visitor picks on the sandbox page; the same fields a TEST client may send as test_* parameters. */
export interface SandboxChoice {
  outcome: 'pass' | 'refuse';
  level: AssuranceLevel;
  country: string;
  subdivision: string | null;
}

export const COUNTRY_PATTERN = '^[A-Z]{2}$';
/** ISO 3166-2: the country, a dash, one to three letters or digits (e.g. US-CA, FR-75, DE-BY). */
export const SUBDIVISION_PATTERN = '^[A-Z]{2}-[A-Z0-9]{1,3}$';

/** Country and subdivision as the sandbox records them; undefined when they do not form a valid pair. */
export function sandboxLocation(country: string, subdivision: string | null | undefined): { country: string; subdivision: string | null } | undefined {
  const upperCountry = country.trim().toUpperCase();
  const upperSubdivision = subdivision?.trim().toUpperCase() || null;
  if (!new RegExp(COUNTRY_PATTERN).test(upperCountry)) return undefined;
  if (upperSubdivision && !(new RegExp(SUBDIVISION_PATTERN).test(upperSubdivision) && upperSubdivision.startsWith(`${upperCountry}-`))) return undefined;
  return { country: upperCountry, subdivision: upperSubdivision };
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
 * The TEST environment's stand-in for `simulated` (ARCHITECTURE §6.1): no third party is called; the visitor
 * picks the outcome, the assurance level and where they are. The verification's method stays `simulated`.
 */
export function sandboxChallenge(simulated: ChallengeName, proposedLevel: AssuranceLevel): Challenge {
  const showForm = async (context: StepContext, choice?: Partial<SandboxChoice>, error?: string): Promise<void> => {
    const located = await context.runtime.geo.locate(context.koa);
    context.render('challenges/sandbox.njk', {
      action: context.stepUrl('submit'),
      simulated,
      levels: ASSURANCE_LEVELS,
      choice: { outcome: 'pass', level: proposedLevel, country: located.country, subdivision: located.subdivision ?? '', ...choice },
      error,
    }, error ? 422 : 200);
  };

  return {
    name: simulated,
    free: true,
    assuranceLevel: proposedLevel,
    async handle(step, context) {
      const { koa } = context;
      if (step === 'start' && koa.method === 'GET') return showForm(context);
      if (step !== 'submit' || koa.method !== 'POST') throw unknownStep();

      const form = readForm(koa, validateSandboxForm);
      if (!form) return showForm(context, undefined, context.t('challenges.sandbox.error.form'));
      if (form.outcome === 'refuse') return context.finish({ passed: false, reason: 'refused' });
      const location = sandboxLocation(form.country, form.subdivision);
      if (!location) return showForm(context, form, context.t('challenges.sandbox.error.location'));
      await context.finish({ passed: true, assuranceLevel: form.level, location });
    },
  };
}
