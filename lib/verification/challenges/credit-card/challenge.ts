import type { ChallengeServices } from '../../services.js';
import { compileSchema, readForm } from '../../../http/form.js';
import { verdict, type Challenge, type StepContext, type ChallengeModule } from '../../challenge.js';
import { attemptLimit } from '../attempts.js';
import { orUnavailable } from '../vendors/steps.js';
import type { CardProcessor } from './processor.js';
import { creditCardSettings, type CreditCardSettings, type CreditCardSetup } from './settings.js';
import { stripeCardProcessor } from './stripe.js';

const validateCheck = compileSchema<{ setup_intent: string }>({
  type: 'object',
  required: ['setup_intent'],
  properties: { setup_intent: { type: 'string', pattern: '^[A-Za-z0-9_]{1,255}$' } },
});

/** A card check without a charge: only an authenticated credit card passes (debit and prepaid prove nothing about age). */
export const creditCardModule: ChallengeModule<CreditCardSetup> = {
  name: 'credit_card',
  settings: creditCardSettings,
  configure(runtime, setup) {
    if (!setup) return undefined;
    const { settings, stripe } = setup;
    return creditCardChallenge(
      runtime,
      settings,
      stripeCardProcessor(stripe, { timeoutMs: settings.timeoutMs, log: runtime.log }),
    );
  },
};

export function creditCardChallenge(
  runtime: ChallengeServices,
  settings: CreditCardSettings,
  processor: CardProcessor,
): Challenge {
  const attempts = attemptLimit(runtime, 'credit-card');

  async function start(context: StepContext): Promise<void> {
    await attempts.spend(context);
    const check = await orUnavailable(context, () => processor.begin(context.attempt.uid));
    if (!check) return;
    context.render(processor.template, {
      ...processor.browser,
      clientSecret: check.clientSecret,
      checkUrl: context.stepUrl('check'),
      vendor: processor.label,
    });
  }

  async function check(context: StepContext): Promise<void> {
    const fields = readForm(context.koa, validateCheck);
    // The browser only says which check it finished; the result is read from the processor, bound to this uid.
    if (!fields) return context.finish({ passed: false, reason: 'failed' });
    await attempts.spend(context);
    const result = await orUnavailable(context, () => processor.result(fields.setup_intent, context.attempt.uid));
    if (!result) return;
    await context.finish(
      verdict(result === 'credit', settings.assuranceLevel, result === 'not-credit' ? 'refused' : 'failed'),
    );
  }

  return {
    name: 'credit_card',
    vendor: processor.vendor,
    free: settings.free,
    assuranceLevel: settings.assuranceLevel,
    csp: processor.csp,
    steps: { start: { GET: start }, check: { POST: check } },
  };
}
