import { defaultLevelOf, isFreeByDefault } from '../../catalogue.js';
import type { Challenge, StepContext, ChallengeModule } from '../../challenge.js';
import { CSRF_FIELD, compileSchema, readForm, textField } from '../../../http/form.js';
import { attemptLimit } from '../attempts.js';
import { normalizeTicketCode, redeemTicket } from './codes.js';

interface TicketForm {
  _csrf: string;
  code: string;
}

const validateTicketForm = compileSchema<TicketForm>({
  type: 'object',
  additionalProperties: false,
  required: ['_csrf', 'code'],
  properties: { ...CSRF_FIELD, code: { type: 'string', maxLength: 100 } },
});

/**
 * The visitor types a single-use code from a ticket batch the operator issued (`age-provider tickets issue`).
 * Built in: it needs no third party, so it is always configured.
 */
export const ticketModule: ChallengeModule = {
  name: 'ticket',
  configure(runtime) {
    // Guessing is hopeless against 100-bit codes; these limits also keep the database out of reach of a flood.
    const guesses = attemptLimit(runtime, 'ticket-guess');

    // A wrong code is shown again (the visitor corrects a typo rather than retyping 20 characters).
    const showForm = (context: StepContext, problem?: { message: string; code: string }, status = 200): void =>
      context.render(
        'challenges/ticket.njk',
        {
          action: context.stepUrl('redeem'),
          code: problem?.code ?? '',
          fieldErrors: problem ? [{ field: 'code', message: problem.message }] : [],
        },
        status,
      );

    const challenge: Challenge = {
      name: 'ticket',
      free: isFreeByDefault('ticket'),
      assuranceLevel: defaultLevelOf('ticket'),
      steps: { start: { GET: (context) => showForm(context) }, redeem: { POST: (context) => redeem(context) } },
    };

    async function redeem(context: StepContext): Promise<void> {
      const { koa } = context;
      const form = readForm(koa, validateTicketForm);
      const code = form && normalizeTicketCode(form.code);
      const typed = textField(koa.request.body, 'code').slice(0, 100);
      if (!code) return showForm(context, { message: context.t('challenges.ticket.error.format'), code: typed }, 422);
      await guesses.spend(context);
      const level = await redeemTicket(runtime.db, runtime.clock, code);
      if (!level) return showForm(context, { message: context.t('challenges.ticket.error.invalid'), code: typed }, 422);
      await context.finish({ passed: true, assuranceLevel: level });
    }
    return challenge;
  },
};
