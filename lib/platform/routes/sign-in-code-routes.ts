import Router from '@koa/router';
import type { Context } from 'koa';
import { compileSchema, CSRF_FIELD, readForm } from '../../http/form.js';
import { seeOther } from '../../http/see-other.js';
import { translator } from '../../i18n/catalogue.js';
import { browserLanguage } from '../../i18n/negotiate.js';
import { createMailer, type MailSettings } from '../../mail/mailer.js';
import type { PlatformServices } from '../services.js';
import { randomToken } from '../../security/hashing.js';
import { normalizeIdentifier } from '../../security/identifiers.js';
import { signInCodeGuard, signInGuard } from '../../security/sign-in-guard.js';
import { findWebmasterByEmail, proveMailbox } from '../../webmasters/accounts.js';
import { issueSignInCode, redeemSignInCode, SIGN_IN_CODE_SECONDS } from '../../webmasters/sign-in-codes.js';
import { completeSignIn, PLATFORM_DEVICE, PLATFORM_LANDING, PLATFORM_PATH } from '../authentication.js';
import { endSessions } from '../sessions.js';
import { onceForms } from '../once.js';
import { renderPage } from '../page.js';

/** The browser's secret a code is bound to: only this browser can enter the code mailed for its request. */
const BROWSER_COOKIE = 'ap_platform_code';
const MINUTES = SIGN_IN_CODE_SECONDS / 60;

const validRequest = compileSchema<{ email: string; _csrf: string }>({
  type: 'object',
  required: ['email', '_csrf'],
  additionalProperties: false,
  properties: { email: { type: 'string', minLength: 3, maxLength: 254, pattern: '@' }, ...CSRF_FIELD },
});

const validEntry = compileSchema<{ code: string; _csrf: string }>({
  type: 'object',
  required: ['code', '_csrf'],
  additionalProperties: false,
  properties: { code: { type: 'string', minLength: 1, maxLength: 32 }, ...CSRF_FIELD },
});

const cookieOptions = (ctx: Context) =>
  ({
    signed: true,
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: PLATFORM_PATH,
    overwrite: true,
  }) as const;

const page = (ctx: Context, variables: Record<string, unknown>, status = 200): void =>
  renderPage(ctx, 'signin-code.njk', { minutes: MINUTES, ...variables }, status);

/**
 * A one-time code mailed to the account's address, for the owner on a new browser while a flood of wrong passwords
 * holds the password's per-account counter (docs/decisions/security.md "One-time sign-in codes"). Asking answers the same
 * whether or not the address has an account (the code is made and mailed after the answer); a code works once, for
 * ten minutes, in the browser that asked, and signing in with it makes that browser a known device.
 */
export function signInCodeRoutes(runtime: PlatformServices, mail: MailSettings): Router {
  const router = new Router();
  const mailer = createMailer(mail, runtime.log);
  const guard = signInGuard(runtime.rateLimits, 'platform-signin', PLATFORM_DEVICE);
  const codes = signInCodeGuard(runtime.rateLimits);

  /** Made and mailed after the answer left: the answer and its timing are the same for an address without an account. */
  const deliver = async (email: string, browser: string, t: ReturnType<typeof translator>): Promise<void> => {
    const webmaster = await findWebmasterByEmail(runtime.db, email);
    if (!webmaster) return;
    const code = await issueSignInCode(runtime.db, runtime.clock, webmaster.id, browser);
    const brand = runtime.config.branding.name;
    await mailer.send({
      to: webmaster.email,
      subject: t('platform.code.mail.subject', { brand }),
      text: t('platform.code.mail.text', { brand, code, minutes: MINUTES }),
    });
  };

  // Asking runs once per form shown, however often it is posted (lib/platform/once.ts): one mail, one code.
  router.use('/signin/code', onceForms(runtime));
  router.get('/signin/code', (ctx) => page(ctx, { step: 'ask' }));
  router.get('/signin/code/enter', (ctx) => page(ctx, { step: 'enter', sent: true }));

  router.post('/signin/code', async (ctx) => {
    const form = readForm(ctx, validRequest);
    if (!form) return page(ctx, { step: 'ask', invalid: true }, 400);
    const email = form.email.trim();
    await codes.admitRequest(ctx, normalizeIdentifier(email));
    // The browser keeps its secret across requests, so its new code replaces its earlier one.
    const browser = ctx.cookies.get(BROWSER_COOKIE, { signed: true }) ?? randomToken(32);
    ctx.cookies.set(BROWSER_COOKIE, browser, { ...cookieOptions(ctx), maxAge: SIGN_IN_CODE_SECONDS * 1000 });
    const t = translator(browserLanguage(ctx));
    // The mailer logs a refused mail itself; the database outage of a later moment is logged here.
    void deliver(email, browser, t).catch((error: unknown) =>
      runtime.log.warn('sign-in code not sent', { error: (error as Error).message }),
    );
    seeOther(ctx, `${PLATFORM_PATH}/signin/code/enter`, { noStore: true });
  });

  router.post('/signin/code/enter', async (ctx) => {
    const form = readForm(ctx, validEntry);
    if (!form) return page(ctx, { step: 'enter', failed: true }, 400);
    await codes.admitEntry(ctx);
    const browser = ctx.cookies.get(BROWSER_COOKIE, { signed: true });
    const webmaster = browser
      ? await redeemSignInCode(runtime.db, runtime.clock, browser, form.code.replace(/\s/g, ''))
      : undefined;
    // A repeat of the post that spent the code (a double click) lands where that one did, and gets nothing itself.
    if (webmaster === 'used') return seeOther(ctx, PLATFORM_LANDING, { noStore: true });
    if (!webmaster) return page(ctx, { step: 'enter', failed: true }, 400);
    ctx.cookies.set(BROWSER_COOKIE, null, cookieOptions(ctx));
    guard.trustDevice(ctx, webmaster.email);
    // The code proves the mailbox: an account whose address was never proven is taken over by its reader, and
    // whoever was signed in to it before is out (migrations/013_webmaster_access.ts).
    if (await proveMailbox(runtime.db, runtime.clock, webmaster.id)) await endSessions(runtime.db, webmaster.id);
    // A second factor, where the account has one, is still asked: the link or code alone opens nothing else.
    seeOther(ctx, await completeSignIn(ctx, runtime, webmaster.id), { noStore: true });
  });

  return router;
}
