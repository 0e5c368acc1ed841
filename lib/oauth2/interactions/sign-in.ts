import { translator } from '../../i18n/catalogue.js';
import { authenticateVisitor } from '../../visitors/visitor-accounts.js';
import { compileSchema, CSRF_FIELD, readForm } from '../../http/form.js';
import { normalizeIdentifier } from '../../security/identifiers.js';
import { noticeOf } from './notices.js';
import { readyToVerify, renderPage } from './page.js';
import { browserProof } from './reuse.js';
import { continueSignedIn } from './signed-in.js';
import type { Visit } from './visit.js';

async function showForm(visit: Visit, error?: string, username = '', status = 200): Promise<void> {
  const { ctx } = visit;
  renderPage(
    visit,
    'interaction/sign-in.njk',
    { proof: await browserProof(visit), notice: noticeOf(ctx), error, username },
    status,
  );
}

/** The login landing (and "sign in" from the challenge choice): visitor sign-in, with a way to verify instead. */
export async function showSignIn(visit: Visit): Promise<void> {
  if (!readyToVerify(visit)) return;
  await showForm(visit);
}

interface SignInForm {
  _csrf: string;
  username: string;
  password: string;
}

const validateSignIn = compileSchema<SignInForm>({
  type: 'object',
  additionalProperties: false,
  required: ['_csrf', 'username', 'password'],
  properties: {
    ...CSRF_FIELD,
    username: { type: 'string', minLength: 1, maxLength: 64 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
});

/** Signs a visitor in with a password (continueSignedIn says what follows). A wrong username and a wrong password get the same answer. */
export async function signIn(visit: Visit): Promise<void> {
  const { services, ctx } = visit;
  if (!readyToVerify(visit)) return;
  const t = translator(visit.language);
  const form = readForm(ctx, validateSignIn);
  if (!form) return showForm(visit, t('interaction.signIn.error.missing'), '', 422);

  const { limits, runtime } = services;
  const attempt = await limits.signIn.admit(ctx, normalizeIdentifier(form.username));
  const account = await authenticateVisitor(runtime.db, form.username, form.password);
  if (!account) {
    await limits.signIn.failed(attempt);
    return showForm(visit, t('interaction.signIn.error.wrong'), form.username, 401);
  }
  await limits.signIn.succeeded(ctx, attempt);
  await continueSignedIn(visit, account.id);
}
