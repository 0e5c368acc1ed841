import Router from '@koa/router';
import type { Context } from 'koa';
import { HttpError } from '../../http/errors.js';
import { compileSchema, CSRF_FIELD, readForm, textField } from '../../http/form.js';
import type { PlatformServices } from '../services.js';
import { normalizeIdentifier } from '../../security/identifiers.js';
import { signInGuard } from '../../security/sign-in-guard.js';
import { authenticateWebmaster } from '../../webmasters/accounts.js';
import {
  completeSignIn,
  endSession,
  PLATFORM_DEVICE,
  PLATFORM_LANDING as LANDING,
  PLATFORM_PATH,
  webmasterOf,
} from '../authentication.js';
import { MAX_PASSWORD_LENGTH } from '../../webmasters/credentials.js';
import { renderPage } from '../page.js';
import { seeOther } from '../../http/see-other.js';

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

/** Sign in with a password, sign out, and the registration page. */
export function authRoutes(runtime: PlatformServices): Router {
  const router = new Router();
  const guard = signInGuard(runtime.rateLimits, 'platform-signin', PLATFORM_DEVICE);

  /** The sign-in page, offering a code by mail where the operator configured a mail server. */
  const signInPage = (ctx: Context, variables: Record<string, unknown>, status?: number): void =>
    renderPage(ctx, 'signin.njk', { ...variables, codes: Boolean(runtime.config.mail) }, status);

  /** A password checked behind the guard's counters; on success the browser is signed in. */
  async function passwordSignIn(
    ctx: Context,
    email: string,
    password: string,
  ): Promise<{ landing: string } | 'failed' | 'throttled'> {
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
    return { landing: await completeSignIn(ctx, runtime, webmaster.id) };
  }

  router.get('/', (ctx) => seeOther(ctx, webmasterOf(ctx) ? LANDING : `${PLATFORM_PATH}/signin`, { noStore: true }));

  // Registering asks for the address only (mailedLinkRoutes); without a mail server nobody registers here: the
  // operator creates accounts with `age-provider webmaster create`, which prints a link to set the password.
  router.get('/register', (ctx) => renderPage(ctx, 'register.njk', { mail: Boolean(runtime.config.mail) }));

  router.get('/signin', (ctx) => signInPage(ctx, {}));
  router.post('/signin', async (ctx) => {
    const form = readForm(ctx, validSignIn);
    const email = form?.email.trim() ?? textField(ctx.request.body, 'email').trim();
    // One message for an unknown email, a wrong password and a malformed form: the form tells nobody which emails exist.
    if (!form) return signInPage(ctx, { email, failed: true }, 400);
    const outcome = await passwordSignIn(ctx, email, form.password);
    // Throttled: the same page says so and offers the code by mail, which these counters do not hold back.
    if (outcome === 'throttled') return signInPage(ctx, { email, throttled: true }, 429);
    if (outcome === 'failed') return signInPage(ctx, { email, failed: true }, 400);
    // Where a second factor is asked (or must be added), there; else the websites.
    seeOther(ctx, outcome.landing, { noStore: true });
  });

  router.post('/signout', async (ctx) => {
    await endSession(ctx, runtime);
    seeOther(ctx, `${PLATFORM_PATH}/signin`, { noStore: true });
  });

  return router;
}
