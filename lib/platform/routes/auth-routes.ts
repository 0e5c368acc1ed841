import Router from '@koa/router';
import type { Context } from 'koa';
import { HttpError } from '../../http/errors.js';
import { compileSchema, CSRF_FIELD, readForm, textField } from '../../http/form.js';
import type { PlatformServices } from '../services.js';
import { sha256 } from '../../security/hashing.js';
import { normalizeIdentifier } from '../../security/identifiers.js';
import { signInGuard } from '../../security/sign-in-guard.js';
import { authenticateWebmaster, createWebmaster, EmailTakenError } from '../../webmasters/accounts.js';
import { endSession, PLATFORM_DEVICE, PLATFORM_LANDING as LANDING, PLATFORM_PATH, startSession, webmasterOf } from '../authentication.js';
import { checkNewCredentials, MAX_PASSWORD_LENGTH, WEBMASTER_MIN_PASSWORD_LENGTH } from '../../webmasters/credentials.js';
import { renderPage } from '../page.js';
import { seeOther } from '../../http/see-other.js';


const PASSWORD_LIMITS = { minLength: WEBMASTER_MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH };

const validSignIn = compileSchema<{ email: string; password: string; _csrf: string }>({
  type: 'object',
  required: ['email', 'password', '_csrf'],
  additionalProperties: false,
  properties: {
    email: { type: 'string', minLength: 1, maxLength: 254 },
    password: { type: 'string', minLength: 1, maxLength: MAX_PASSWORD_LENGTH },
    ...CSRF_FIELD,
  },
});

// Limiter keys hold a digest, not the address itself, so the shared rate_limits table stores no emails.
const emailKey = (email: string): string => sha256(normalizeIdentifier(email));

/** Register, sign in, sign out. */
export function authRoutes(runtime: PlatformServices): Router {
  const router = new Router();
  const guard = signInGuard(runtime.rateLimits, 'platform-signin', PLATFORM_DEVICE);
  const limits = {
    registerPerEmail: runtime.rateLimits.limiter('platform-register-email'),
    registerPerIp: runtime.rateLimits.limiter('platform-register-ip'),
  };

  /** The sign-in page, offering a code by mail where the operator configured a mail server. */
  const signInPage = (ctx: Context, variables: Record<string, unknown>, status?: number): void =>
    renderPage(ctx, 'signin.njk', { ...variables, codes: Boolean(runtime.config.mail) }, status);

  /** A password checked behind the guard's counters; on success the browser is signed in. */
  async function passwordSignIn(ctx: Context, email: string, password: string): Promise<'signed_in' | 'failed' | 'throttled'> {
    let attempt;
    try {
      attempt = await guard.admit(ctx, normalizeIdentifier(email));
    } catch (error) {
      if (!(error instanceof HttpError) || error.status !== 429) throw error;
      ctx.set(error.headers);
      return 'throttled';
    }
    const webmaster = await authenticateWebmaster(runtime.db, email, password);
    if (!webmaster) {
      await guard.failed(attempt);
      return 'failed';
    }
    await guard.succeeded(ctx, attempt);
    await startSession(ctx, runtime, webmaster.id);
    return 'signed_in';
  }

  router.get('/', (ctx) => seeOther(ctx, webmasterOf(ctx) ? LANDING : `${PLATFORM_PATH}/signin`, { noStore: true }));

  router.get('/register', (ctx) => renderPage(ctx, 'register.njk', PASSWORD_LIMITS));
  router.post('/register', async (ctx) => {
    const email = textField(ctx.request.body, 'email').trim();
    const password = textField(ctx.request.body, 'password');
    await limits.registerPerIp.consume(ctx.ip);
    await limits.registerPerEmail.consume(emailKey(email));
    const errors: Record<string, string> = {};
    for (const field of checkNewCredentials({ email, password })) errors[field] = `platform.register.error.${field}`;
    if (!errors.password && password !== textField(ctx.request.body, 'confirm')) errors.confirm = 'platform.register.error.confirm';
    if (Object.keys(errors).length > 0) return renderPage(ctx, 'register.njk', { ...PASSWORD_LIMITS, email, errors }, 400);
    // A new account is signed in and lands on its websites. A taken email changes nothing: its owner, who typed the
    // account's password, is signed in as at the sign-in form; anyone else gets the sign-in page, which says that the
    // account exists (docs/decisions/security.md "Registering signs in").
    try {
      const webmaster = await createWebmaster(runtime.db, { email, password });
      await startSession(ctx, runtime, webmaster.id);
      return seeOther(ctx, LANDING, { noStore: true });
    } catch (error) {
      if (!(error instanceof EmailTakenError)) throw error;
    }
    // The password of a taken email is checked by the sign-in form's guard, so this is no second way to guess it.
    const outcome = await passwordSignIn(ctx, email, password);
    if (outcome === 'throttled') return signInPage(ctx, { email, throttled: true }, 429);
    if (outcome === 'failed') return seeOther(ctx, `${PLATFORM_PATH}/signin?registered=1`, { noStore: true });
    seeOther(ctx, LANDING, { noStore: true });
  });

  router.get('/signin', (ctx) => signInPage(ctx, { registered: ctx.query['registered'] === '1' }));
  router.post('/signin', async (ctx) => {
    const form = readForm(ctx, validSignIn);
    const email = form?.email.trim() ?? textField(ctx.request.body, 'email').trim();
    // One message for an unknown email, a wrong password and a malformed form: the form tells nobody which emails exist.
    if (!form) return signInPage(ctx, { email, failed: true }, 400);
    const outcome = await passwordSignIn(ctx, email, form.password);
    // Throttled: the same page says so and offers the code by mail, which these counters do not hold back.
    if (outcome === 'throttled') return signInPage(ctx, { email, throttled: true }, 429);
    if (outcome === 'failed') return signInPage(ctx, { email, failed: true }, 400);
    seeOther(ctx, LANDING, { noStore: true });
  });

  router.post('/signout', async (ctx) => {
    await endSession(ctx, runtime);
    seeOther(ctx, `${PLATFORM_PATH}/signin`, { noStore: true });
  });

  return router;
}
