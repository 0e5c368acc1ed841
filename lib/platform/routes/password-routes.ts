import Router from '@koa/router';
import type { Context } from 'koa';
import { compileSchema, CSRF_FIELD, readForm, textField } from '../../http/form.js';
import { seeOther } from '../../http/see-other.js';
import { translator } from '../../i18n/catalogue.js';
import { browserLanguage } from '../../i18n/negotiate.js';
import { createMailer, type MailSettings } from '../../mail/mailer.js';
import type { PlatformServices } from '../services.js';
import { sha256 } from '../../security/hashing.js';
import { normalizeIdentifier } from '../../security/identifiers.js';
import { findWebmasterByEmail } from '../../webmasters/accounts.js';
import {
  checkNewCredentials,
  MAX_PASSWORD_LENGTH,
  WEBMASTER_MIN_PASSWORD_LENGTH,
} from '../../webmasters/credentials.js';
import {
  findPasswordLink,
  issuePasswordLink,
  MAILED_LINK_SECONDS,
  passwordLinkUrl,
  usePasswordLink,
  type LinkPurpose,
} from '../../webmasters/password-links.js';
import { onceForms } from '../once.js';
import { renderPage } from '../page.js';
import { completeSignIn, PLATFORM_PATH } from '../authentication.js';
import { endSessions } from '../sessions.js';

const PASSWORD_LIMITS = { minLength: WEBMASTER_MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH };
const MINUTES = MAILED_LINK_SECONDS / 60;

const validAddress = compileSchema<{ email: string; _csrf: string }>({
  type: 'object',
  required: ['email', '_csrf'],
  additionalProperties: false,
  properties: { email: { type: 'string', format: 'email', maxLength: 254 }, ...CSRF_FIELD },
});

// Limiter keys hold a digest, not the address itself, so the shared rate_limits table stores no emails.
const emailKey = (email: string): string => sha256(normalizeIdentifier(email));

/**
 * The address is proven before any credential is attached to it (issue 32, docs/decisions "Registration proves the
 * address first"): registering and "forgot my password" both ask for an address only, answer the same whether or not
 * it has an account, and mail a single-use link (kept as a digest, thirty minutes) whose page sets the password.
 * A registration for an address that has an account mails that account a reset link instead. Mounted only where
 * the operator configured a mail server; the link's page itself (set-password routes) also serves the operator's
 * printed links and is always mounted.
 */
export function mailedLinkRoutes(runtime: PlatformServices, mail: MailSettings): Router {
  const router = new Router();
  const mailer = createMailer(mail, runtime.log);
  const limits = {
    register: {
      email: runtime.rateLimits.limiter('platform-register-email'),
      ip: runtime.rateLimits.limiter('platform-register-ip'),
    },
    reset: {
      email: runtime.rateLimits.limiter('platform-reset-email'),
      ip: runtime.rateLimits.limiter('platform-reset-ip'),
    },
  };

  /**
   * Made and mailed after the answer left, so the answer and its timing are the same for an address with or without
   * an account: a new address gets a link that creates its account; one with an account, a reset link (which says
   * so), whether the form was the registration or the reset; no mail to an unknown address asking for a reset.
   */
  const deliver = async (
    email: string,
    asked: 'register' | 'reset',
    t: ReturnType<typeof translator>,
  ): Promise<void> => {
    const account = await findWebmasterByEmail(runtime.db, email);
    if (!account && asked === 'reset') return;
    const purpose: LinkPurpose = account ? 'reset' : 'register';
    const link = passwordLinkUrl(
      runtime.config.issuer,
      await issuePasswordLink(runtime.db, runtime.clock, email, purpose),
    );
    const brand = runtime.config.branding.name;
    const kind = account ? (asked === 'register' ? 'exists' : 'reset') : 'register';
    await mailer.send({
      to: account?.email ?? normalizeIdentifier(email),
      subject: t(`platform.link.mail.${kind}.subject`, { brand }),
      text: t(`platform.link.mail.${kind}.text`, { brand, link, minutes: MINUTES }),
    });
  };

  /** One handler for both forms: the address checked, counted, answered, then mailed. */
  const ask = (asked: 'register' | 'reset', template: string, sent: string) => async (ctx: Context) => {
    const form = readForm(ctx, validAddress);
    const email = form?.email.trim() ?? textField(ctx.request.body, 'email').trim();
    if (!form)
      return renderPage(
        ctx,
        template,
        { ...PASSWORD_LIMITS, email, mail: true, errors: { email: 'platform.register.error.email' } },
        400,
      );
    await limits[asked].ip.consume(ctx.ip);
    await limits[asked].email.consume(emailKey(email));
    const t = translator(browserLanguage(ctx));
    // The mailer logs a refused mail itself; a database outage of a later moment is logged here.
    void deliver(email, asked, t).catch((error: unknown) =>
      runtime.log.warn('password link not sent', { error: (error as Error).message }),
    );
    seeOther(ctx, sent, { noStore: true });
  };

  // Each form runs once however often it is posted (lib/platform/once.ts): one mail, one link.
  router.use(['/register', '/password/forgot'], onceForms(runtime));
  router.post('/register', ask('register', 'register.njk', `${PLATFORM_PATH}/register/sent`));
  router.get('/register/sent', (ctx) => renderPage(ctx, 'link-sent.njk', { asked: 'register', minutes: MINUTES }));
  router.get('/password/forgot', (ctx) => renderPage(ctx, 'password-forgot.njk'));
  router.post('/password/forgot', ask('reset', 'password-forgot.njk', `${PLATFORM_PATH}/password/forgot/sent`));
  router.get('/password/forgot/sent', (ctx) => renderPage(ctx, 'link-sent.njk', { asked: 'reset', minutes: MINUTES }));
  return router;
}

const validPassword = compileSchema<{ password: string; confirm: string; _csrf: string }>({
  type: 'object',
  required: ['password', 'confirm', '_csrf'],
  additionalProperties: false,
  properties: {
    password: { type: 'string', maxLength: MAX_PASSWORD_LENGTH + 1 },
    confirm: { type: 'string', maxLength: MAX_PASSWORD_LENGTH + 1 },
    ...CSRF_FIELD,
  },
});

/** The page a set-password link opens (mailed, or printed by `age-provider webmaster create | reset-password`). */
export function setPasswordRoutes(runtime: PlatformServices): Router {
  const router = new Router();
  const expired = (ctx: Context) =>
    renderPage(ctx, 'password-set.njk', { expired: true, mail: Boolean(runtime.config.mail) }, 404);

  // A double submit lands where the first did; the link itself is single-use under concurrency (usePasswordLink).
  router.use('/password/:token', onceForms(runtime));
  router.get('/password/:token', async (ctx) => {
    const link = await findPasswordLink(runtime.db, runtime.clock, ctx.params.token!);
    if (!link) return expired(ctx);
    ctx.set('Cache-Control', 'no-store');
    renderPage(ctx, 'password-set.njk', {
      ...PASSWORD_LIMITS,
      token: ctx.params.token,
      email: link.email,
      purpose: link.purpose,
    });
  });

  router.post('/password/:token', async (ctx) => {
    const token = ctx.params.token!;
    const form = readForm(ctx, validPassword);
    const password = form?.password ?? '';
    const errors: Record<string, string> = {};
    if (!form || checkNewCredentials({ email: 'a@b.example', password }).includes('password'))
      errors.password = 'platform.register.error.password';
    else if (password !== form.confirm) errors.confirm = 'platform.register.error.confirm';
    if (Object.keys(errors).length > 0) {
      const link = await findPasswordLink(runtime.db, runtime.clock, token);
      if (!link) return expired(ctx);
      return renderPage(
        ctx,
        'password-set.njk',
        { ...PASSWORD_LIMITS, token, email: link.email, purpose: link.purpose, errors },
        400,
      );
    }
    const webmaster = await usePasswordLink(runtime.db, runtime.clock, token, password, ctx.ip);
    if (!webmaster) return expired(ctx);
    // Whoever was signed in before (someone who knew the old password, or registered the address first) is out.
    await endSessions(runtime.db, webmaster.id);
    // A second factor, where the account has one, is still asked: the link or code alone opens nothing else.
    seeOther(ctx, await completeSignIn(ctx, runtime, webmaster.id), { noStore: true });
  });
  return router;
}
