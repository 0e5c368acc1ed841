import type { Context } from 'koa';
import { compileSchema, CSRF_FIELD, readForm } from '../../http/form.js';
import { seeOther } from '../../http/see-other.js';
import { base32, otpauthUri } from '../../security/totp.js';
import { qrCodeSvg } from '../../verification/challenges/eu-av/qr.js';
import {
  confirmTotp,
  hasSecondFactor,
  pendingTotp,
  recoveryCodesLeft,
  removeTotp,
  startTotp,
  verifySecondFactor,
} from '../../webmasters/second-factors.js';
import {
  advanceSession,
  ENROL_PAGE,
  originOf,
  PLATFORM_LANDING,
  PLATFORM_PATH,
  sessionIdOf,
  webmasterOf,
} from '../authentication.js';
import { renderPage } from '../page.js';
import type { PlatformServices } from '../services.js';
import { PlatformRoutes } from '../route-table.js';
import { countFactorAttempt } from '../sessions.js';

const validCode = compileSchema<{ code: string; _csrf: string }>({
  type: 'object',
  required: ['code', '_csrf'],
  additionalProperties: false,
  properties: { code: { type: 'string', minLength: 1, maxLength: 40 }, ...CSRF_FIELD },
});

/**
 * The second factor at sign-in: a session opened by a password, a mailed code or a set-password link reaches only
 * this page until an authenticator's code or a recovery code is given (lib/platform/authentication.ts
 * requireWebmaster); five wrong codes end it.
 */
export function secondFactorSignInRoutes(runtime: PlatformServices): PlatformRoutes {
  const routes = new PlatformRoutes();
  const waiting = (ctx: Context): boolean => webmasterOf(ctx)?.stage === 'second_factor';

  routes.get('/signin/second-factor', 'signed-in', (ctx) => {
    if (!waiting(ctx)) return seeOther(ctx, `${PLATFORM_PATH}/signin`, { noStore: true });
    renderPage(ctx, 'second-factor.njk', { step: 'sign-in' });
  });
  routes.post('/signin/second-factor', 'signed-in', async (ctx) => {
    if (!waiting(ctx))
      return seeOther(ctx, webmasterOf(ctx) ? PLATFORM_LANDING : `${PLATFORM_PATH}/signin`, { noStore: true });
    const form = readForm(ctx, validCode);
    if (form && (await verifySecondFactor(runtime, webmasterOf(ctx)!.id, form.code))) {
      await advanceSession(ctx, runtime);
      return seeOther(ctx, PLATFORM_LANDING, { noStore: true });
    }
    if (!(await countFactorAttempt(runtime.db, sessionIdOf(ctx))))
      return seeOther(ctx, `${PLATFORM_PATH}/signin`, { noStore: true });
    renderPage(ctx, 'second-factor.njk', { step: 'sign-in', failed: true }, 400);
  });
  return routes;
}

/** Adding and removing an authenticator app (Account, Second factor), with recovery codes shown once. */
export function secondFactorRoutes(runtime: PlatformServices): PlatformRoutes {
  const routes = new PlatformRoutes();
  const required = runtime.config.webmasters.secondFactorRequired;

  async function page(ctx: Context, variables: Record<string, unknown> = {}, status = 200): Promise<void> {
    const webmaster = webmasterOf(ctx)!;
    const pending = await pendingTotp(runtime, webmaster.id);
    const adding = pending && {
      secret: base32(pending)
        .match(/.{1,4}/g)!
        .join(' '),
      qr: await qrCodeSvg(otpauthUri(runtime.config.branding.name, webmaster.email, pending)),
    };
    ctx.set('Cache-Control', 'no-store');
    renderPage(
      ctx,
      'second-factor.njk',
      {
        step: 'manage',
        required,
        enrolling: webmaster.stage === 'enrol',
        active: await hasSecondFactor(runtime.db, webmaster.id),
        codesLeft: await recoveryCodesLeft(runtime.db, webmaster.id),
        adding,
        ...variables,
      },
      status,
    );
  }

  routes.get('/account/second-factor', 'signed-in', (ctx) => page(ctx));
  routes.post('/account/second-factor/totp', 'signed-in', async (ctx) => {
    if (!(await hasSecondFactor(runtime.db, webmasterOf(ctx)!.id))) await startTotp(runtime, webmasterOf(ctx)!.id);
    seeOther(ctx, `${ENROL_PAGE}#adding-heading`, { noStore: true });
  });
  routes.post('/account/second-factor/totp/confirm', 'signed-in', async (ctx) => {
    const form = readForm(ctx, validCode);
    const codes =
      form && (await confirmTotp(runtime, webmasterOf(ctx)!.id, form.code.replace(/\s/g, ''), originOf(ctx)));
    if (!codes) return page(ctx, { failed: true }, 400);
    // Where one was required, the session may now reach everything: it is replaced by a full one.
    if (webmasterOf(ctx)!.stage === 'enrol') await advanceSession(ctx, runtime);
    ctx.set('Cache-Control', 'no-store');
    renderPage(ctx, 'second-factor.njk', { step: 'codes', codes });
  });
  routes.post('/account/second-factor/remove', 'signed-in', async (ctx) => {
    const form = readForm(ctx, validCode);
    const webmaster = webmasterOf(ctx)!;
    if (required) return page(ctx, { removeRefused: true }, 400);
    if (!form || !(await verifySecondFactor(runtime, webmaster.id, form.code)))
      return page(ctx, { removeFailed: true }, 400);
    await removeTotp(runtime, webmaster.id, originOf(ctx));
    seeOther(ctx, ENROL_PAGE, { noStore: true });
  });
  return routes;
}
