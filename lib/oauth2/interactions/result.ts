import { translator, type Translate } from '../../i18n/catalogue.js';
import { placeNames } from '../../geo/display-names.js';
import {
  createVisitorAccount,
  VISITOR_MIN_PASSWORD_LENGTH,
  USERNAME_PATTERN,
  UsernameTakenError,
} from '../../visitors/visitor-accounts.js';
import { compileSchema, CSRF_FIELD, readForm, textField } from '../../http/form.js';
import { accountSubject, proofOf, saveProof } from '../../verification/proofs.js';
import type { Verification } from '../../verification/verifications.js';
import { seeOther } from '../../http/see-other.js';
import { noticeOf, type Notice } from './notices.js';
import { handOver } from './outcome.js';
import { renderPage } from './page.js';
import { claimVerificationForAccount } from './progress.js';
import type { Visit } from './visit.js';

/** The verification this visit recorded; without one the visitor goes back to the start (undefined). */
function recordedVerification(visit: Visit): Verification | undefined {
  const verification = visit.progress.verification ?? undefined;
  if (!verification) seeOther(visit.ctx, visit.paths.root);
  return verification;
}

/** A form field's problem, shown in the summary at the top of the form (linked to the field) and beside the field. */
export interface FieldError {
  field: string;
  message: string;
}

const showResult = (
  visit: Visit,
  verification: Verification,
  extra: { fieldErrors?: FieldError[]; error?: string; username?: string; notice?: Notice } = {},
  status = 200,
): void =>
  renderPage(
    visit,
    'interaction/result.njk',
    {
      verification,
      place: placeNames(verification.country, verification.countrySubdivision, visit.language),
      minPasswordLength: VISITOR_MIN_PASSWORD_LENGTH,
      invalid: Object.fromEntries((extra.fieldErrors ?? []).map((problem) => [problem.field, true])),
      ...extra,
    },
    status,
  );

/** After a pass: what the website will receive, with "save this result to an account" or "continue". */
export async function showVerificationResult(visit: Visit): Promise<void> {
  const { ctx } = visit;
  const verification = recordedVerification(visit);
  if (verification) showResult(visit, verification, { notice: noticeOf(ctx) });
}

export async function continueToWebsite(visit: Visit): Promise<void> {
  const verification = recordedVerification(visit);
  if (verification) await handOver(visit, verification);
}

interface SaveForm {
  _csrf: string;
  username: string;
  password: string;
  password_confirmation: string;
}

const validateSave = compileSchema<SaveForm>({
  type: 'object',
  additionalProperties: false,
  required: ['_csrf', 'username', 'password', 'password_confirmation'],
  properties: {
    ...CSRF_FIELD,
    username: { type: 'string', pattern: USERNAME_PATTERN },
    password: { type: 'string', minLength: VISITOR_MIN_PASSWORD_LENGTH, maxLength: 1024 },
    password_confirmation: { type: 'string', maxLength: 1024 },
  },
});

const USERNAME = new RegExp(USERNAME_PATTERN);

/** Every problem of the save form at once, so the visitor fixes them in one go. */
function saveFormProblems(body: unknown, t: Translate): FieldError[] {
  const password = textField(body, 'password');
  return [
    ...(USERNAME.test(textField(body, 'username'))
      ? []
      : [{ field: 'username', message: t('interaction.result.error.username') }]),
    ...(password.length >= VISITOR_MIN_PASSWORD_LENGTH && password.length <= 1024
      ? []
      : [{ field: 'password', message: t('interaction.result.error.password', { min: VISITOR_MIN_PASSWORD_LENGTH }) }]),
    ...(textField(body, 'password_confirmation') === password
      ? []
      : [{ field: 'password_confirmation', message: t('interaction.result.error.confirmation') }]),
  ];
}

/** Creates a visitor account holding this result (reusable for PROOF_REUSE_TTL), then continues to the website. */
export async function saveToAccount(visit: Visit): Promise<void> {
  const { services, ctx } = visit;
  const verification = recordedVerification(visit);
  if (!verification) return;
  const { runtime, limits } = services;
  const t = translator(visit.language);
  const typedUsername = textField(ctx.request.body, 'username').slice(0, 64);
  const form = readForm(ctx, validateSave);
  const problems = saveFormProblems(ctx.request.body, t);
  if (!form || problems.length > 0) {
    // A form of the wrong shape (a field missing or repeated) says what the visitor can fix: the username.
    const fieldErrors =
      problems.length > 0 ? problems : [{ field: 'username', message: t('interaction.result.error.username') }];
    return showResult(visit, verification, { fieldErrors, username: typedUsername }, 422);
  }
  await limits.accountCreationPerIp.consume(ctx.ip);
  // Checked before the name is: once spent, every name gets the 429, a free one as well as a taken one.
  await limits.usernameTakenPerVerification.check(verification.uid);
  let accountId: number;
  try {
    accountId = (
      await createVisitorAccount(
        runtime.db,
        { username: form.username, password: form.password },
        async (trx, account) => {
          if (!(await claimVerificationForAccount(trx, visit.uid, verification.uid, account.id)))
            throw new ResultAlreadySavedError();
          await saveProof(trx, proofOf(verification, accountSubject(account.id), runtime.config.proofReuseTtl));
        },
      )
    ).id;
  } catch (error) {
    if (error instanceof ResultAlreadySavedError)
      return showResult(visit, verification, { error: t('interaction.result.error.alreadySaved') }, 409);
    if (!(error instanceof UsernameTakenError)) throw error;
    // Whether a username exists is the one thing this form must tell; each answer costs a probe (see limits.ts).
    await limits.usernameTakenPerVerification.record(verification.uid);
    return showResult(
      visit,
      verification,
      { fieldErrors: [{ field: 'username', message: t('interaction.result.error.taken') }], username: typedUsername },
      409,
    );
  }
  visit.progress = { ...visit.progress, accountId };
  await handOver(visit, verification);
}

/** Another "save" of the same result (a second tab, a double click) created its account first. */
class ResultAlreadySavedError extends Error {
  override name = 'ResultAlreadySavedError';
}
