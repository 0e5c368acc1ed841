import { createMailer, MailUnavailableError, type Mailer } from '../../../mail/mailer.js';
import type { ChallengeServices } from '../../services.js';
import { compileSchema, readForm } from '../../../http/form.js';
import { randomToken } from '../../../security/hashing.js';
import { createSealer } from '../../../security/sealing.js';
import { verdict, type Challenge, type StepContext, type ChallengeModule } from '../../challenge.js';
import { attemptLimit } from '../attempts.js';
import { orUnavailable } from '../vendors/steps.js';
import { CODE_TTL_SECONDS, codeMatches, newCode, storeCode, type StoredCode } from './codes.js';
import { emailAgeSettings, type EmailAgeSettings, type EmailAgeSetup } from './settings.js';
import type { EmailAgeEstimator } from './estimator.js';
import { yotiEmailAgeEstimator } from './yoti.js';

/**
 * Between "send" and "verify" the challenge keeps the salted code hash and the address sealed with a key that only
 * the visitor's browser holds (a hidden field of the code form): the stored state alone never reveals the address.
 */
interface PendingCheck {
  code: StoredCode;
  sealedAddress: string;
  country: string;
}

const validateSend = compileSchema<{ email: string }>({
  type: 'object',
  required: ['email'],
  properties: { email: { type: 'string', format: 'email', maxLength: 254 } },
});
const validateVerify = compileSchema<{ code: string; key: string }>({
  type: 'object',
  required: ['code', 'key'],
  properties: {
    code: { type: 'string', pattern: '^\\s*\\d{3}\\s?\\d{3}\\s*$' },
    key: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
  },
});

/** Proves the visitor owns an address (one-time code by mail), then asks the vendor how old its owner is. */
export const emailAgeModule: ChallengeModule<EmailAgeSetup> = {
  name: 'email_age',
  settings: emailAgeSettings,
  configure(runtime, setup) {
    if (!setup) return undefined;
    const { settings, yoti, mail } = setup;
    const estimator = yotiEmailAgeEstimator(yoti, { timeoutMs: settings.timeoutMs, log: runtime.log });
    return emailAgeChallenge(runtime, settings, estimator, createMailer(mail, runtime.log));
  },
};

export function emailAgeChallenge(
  runtime: ChallengeServices,
  settings: EmailAgeSettings,
  estimator: EmailAgeEstimator,
  mailer: Mailer,
): Challenge {
  const sends = attemptLimit(runtime, 'email-age-send');
  const guesses = attemptLimit(runtime, 'email-age-code');

  const addressPage = (context: StepContext, error?: string, status = 200): void =>
    context.render(
      'challenges/email-age.njk',
      {
        sendUrl: context.stepUrl('send'),
        vendor: estimator.label,
        error: error ? context.t(error) : undefined,
      },
      status,
    );

  const codePage = (context: StepContext, key: string, error?: string, status = 200): void =>
    context.render(
      'challenges/email-age-code.njk',
      {
        verifyUrl: context.stepUrl('verify'),
        restartUrl: context.stepUrl('start'),
        key,
        minutes: CODE_TTL_SECONDS / 60,
        error,
      },
      status,
    );

  /** The country the vendor needs, or undefined when neither the geo resolver nor the operator's default gives one. */
  async function countryOf(context: StepContext): Promise<string | undefined> {
    if (!estimator.needsCountry) return 'ZZ';
    const { country } = await context.runtime.geo.locate(context.koa);
    return country !== 'ZZ' ? country : settings.defaultCountry;
  }

  async function start(context: StepContext): Promise<void> {
    // The vendor says "over" its one threshold: it cannot vouch for the policy's buffer above the age (docs/policies.md).
    const { ageThreshold, estimationBuffer } = context.attempt;
    if (ageThreshold <= estimator.maxThreshold && ageThreshold + estimationBuffer > estimator.maxThreshold) {
      return context.finish({ passed: false, reason: 'estimate_too_close' });
    }
    // The vendor cannot vouch for a higher threshold, or cannot work without a country: offer another method.
    if (ageThreshold > estimator.maxThreshold || !(await countryOf(context))) {
      return context.finish({ passed: false, reason: 'unavailable' });
    }
    addressPage(context);
  }

  async function send(context: StepContext): Promise<void> {
    const posted = (context.koa.request.body ?? {}) as Record<string, unknown>;
    const fields = { ...posted, email: typeof posted.email === 'string' ? posted.email.trim() : posted.email };
    if (!validateSend(fields)) return addressPage(context, 'challenges.emailAge.error.address', 400);
    const country = await countryOf(context);
    if (!country) return context.finish({ passed: false, reason: 'unavailable' });
    await sends.spend(context);
    const code = newCode();
    const key = randomToken(32);
    const pending: PendingCheck = {
      code: storeCode(code, context.runtime.clock.now()),
      sealedAddress: createSealer(Buffer.from(key, 'base64url')).seal(fields.email),
      country,
    };
    await context.state.set(pending);
    try {
      await mailer.send({
        to: fields.email,
        subject: context.t('challenges.emailAge.mail.subject', { website: context.attempt.website.name }),
        text: context.t('challenges.emailAge.mail.text', {
          code,
          minutes: CODE_TTL_SECONDS / 60,
          website: context.attempt.website.name,
        }),
      });
    } catch (error) {
      if (!(error instanceof MailUnavailableError)) throw error;
      return context.finish({ passed: false, reason: 'unavailable' });
    }
    codePage(context, key);
  }

  async function verify(context: StepContext): Promise<void> {
    const fields = readForm(context.koa, validateVerify);
    const pending = await context.state.get<PendingCheck>();
    if (!pending || !fields || pending.code.expiresAt <= context.runtime.clock.now().getTime()) {
      return addressPage(
        context,
        pending ? 'challenges.emailAge.error.expired' : 'challenges.emailAge.error.restart',
        400,
      );
    }
    await guesses.spend(context);
    if (!codeMatches(pending.code, fields.code.replace(/\s/g, ''))) {
      const attemptsLeft = pending.code.attemptsLeft - 1;
      if (attemptsLeft <= 0) return context.finish({ passed: false, reason: 'failed' });
      await context.state.set<PendingCheck>({ ...pending, code: { ...pending.code, attemptsLeft } });
      return codePage(context, fields.key, context.t('challenges.emailAge.error.code', { left: attemptsLeft }), 422);
    }
    let address: string;
    try {
      address = createSealer(Buffer.from(fields.key, 'base64url')).unseal(pending.sealedAddress);
    } catch {
      return addressPage(context, 'challenges.emailAge.error.restart', 400);
    }
    const answer = await orUnavailable(context, () => estimator.check({ address, country: pending.country }));
    if (!answer) return;
    await context.finish(verdict(answer === 'over', settings.assuranceLevel));
  }

  return {
    name: 'email_age',
    vendor: estimator.vendor,
    free: settings.free,
    assuranceLevel: settings.assuranceLevel,
    steps: { start: { GET: start }, send: { POST: send }, verify: { POST: verify } },
  };
}
