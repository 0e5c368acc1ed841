import type { Context } from 'koa';
import type { PlatformServices } from '../services.js';
import { PlatformRoutes } from '../route-table.js';
import { HttpError } from '../../http/errors.js';
import { compileSchema, CSRF_FIELD, readForm } from '../../http/form.js';
import { seeOther } from '../../http/see-other.js';
import { changePassword, checkPassword, hasPassword } from '../../webmasters/accounts.js';
import {
  checkNewCredentials,
  MAX_PASSWORD_LENGTH,
  WEBMASTER_MIN_PASSWORD_LENGTH,
} from '../../webmasters/credentials.js';
import { originOf, PLATFORM_PATH, sessionIdOf, webmasterOf } from '../authentication.js';
import { formatTimestamp, renderPage } from '../page.js';
import { endSessionByKey, endSessions, listSessions } from '../sessions.js';
import { summariseUserAgent } from '../user-agent.js';

const SECURITY = `${PLATFORM_PATH}/account/security`;
const PASSWORD_LIMITS = { minLength: WEBMASTER_MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH };
/** A sign-in this recent stands for the current password: the webmaster just typed it, or proved the mailbox. */
export const FRESH_SIGN_IN_SECONDS = 10 * 60;

const validChange = compileSchema<{ current?: string; password: string; confirm: string; _csrf: string }>({
  type: 'object',
  required: ['password', 'confirm', '_csrf'],
  additionalProperties: false,
  properties: {
    current: { type: 'string', maxLength: MAX_PASSWORD_LENGTH, nullable: true },
    password: { type: 'string', maxLength: MAX_PASSWORD_LENGTH + 1 },
    confirm: { type: 'string', maxLength: MAX_PASSWORD_LENGTH + 1 },
    ...CSRF_FIELD,
  },
});

const validSession = compileSchema<{ session: string; _csrf: string }>({
  type: 'object',
  required: ['session', '_csrf'],
  additionalProperties: false,
  properties: { session: { type: 'string', pattern: '^[0-9a-f]{64}$' }, ...CSRF_FIELD },
});

/**
 * The account's sign-in and security page: the password (changed with the current one, or within ten minutes of
 * signing in), and the sessions (browser, address, last request) with sign-out of one or of every other. Sessions are
 * rows checked on every request, so a sign-out holds on every instance at once.
 */
export function securityRoutes(runtime: PlatformServices): PlatformRoutes {
  const routes = new PlatformRoutes();
  const wrongCurrent = runtime.rateLimits.limiter('platform-password-change');

  const fresh = (ctx: Context): boolean =>
    runtime.clock.now().getTime() - webmasterOf(ctx)!.signedInAt.getTime() < FRESH_SIGN_IN_SECONDS * 1000;

  async function page(ctx: Context, variables: Record<string, unknown> = {}, status = 200): Promise<void> {
    const webmaster = webmasterOf(ctx)!;
    const sessions = await listSessions(runtime, webmaster.id, sessionIdOf(ctx));
    renderPage(
      ctx,
      'account-security.njk',
      {
        ...PASSWORD_LIMITS,
        hasPassword: await hasPassword(runtime.db, webmaster.id),
        needsCurrent: !fresh(ctx),
        sessions: sessions.map((session) => ({
          ...session,
          ...summariseUserAgent(session.userAgent),
          signedInAt: formatTimestamp(session.signedInAt),
          lastSeenAt: formatTimestamp(session.lastSeenAt),
        })),
        changed: ctx.query['changed'] === '1',
        ended: ctx.query['ended'] === '1',
        ...variables,
      },
      status,
    );
  }

  routes.get('/account/security', 'signed-in', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    await page(ctx);
  });

  routes.post('/account/password', 'signed-in', async (ctx) => {
    const webmaster = webmasterOf(ctx)!;
    const form = readForm(ctx, validChange);
    const errors: Record<string, string> = {};
    if (!form || checkNewCredentials({ email: 'a@b.example', password: form.password }).includes('password'))
      errors.password = 'platform.register.error.password';
    else if (form.password !== form.confirm) errors.confirm = 'platform.register.error.confirm';
    // The current password, unless the sign-in is fresh or the account has none (taken over, or made by the operator):
    // a session left open somewhere is not enough to lock its owner out of the account.
    else if (!fresh(ctx) && (await hasPassword(runtime.db, webmaster.id))) {
      await wrongCurrent.check(String(webmaster.id));
      if (!(await checkPassword(runtime.db, webmaster.id, form.current ?? ''))) {
        await wrongCurrent.record(String(webmaster.id));
        errors.current = 'platform.security.error.current';
      }
    }
    if (Object.keys(errors).length > 0) return page(ctx, { errors }, 400);
    await changePassword(runtime.db, runtime.clock, webmaster.id, form!.password, originOf(ctx));
    // Every other session ends, on every instance; this one stays.
    await endSessions(runtime.db, webmaster.id, { except: sessionIdOf(ctx) });
    seeOther(ctx, `${SECURITY}?changed=1#password-heading`, { noStore: true });
  });

  routes.post('/account/sessions/end', 'signed-in', async (ctx) => {
    const form = readForm(ctx, validSession);
    if (!form) throw new HttpError(400, 'This session is not one of yours.');
    await endSessionByKey(runtime.db, webmasterOf(ctx)!.id, form.session);
    // Ending this browser's own session signs it out: the sign-in page is where it lands.
    seeOther(ctx, (await stillSignedIn(ctx)) ? `${SECURITY}?ended=1#sessions-heading` : `${PLATFORM_PATH}/signin`, {
      noStore: true,
    });
  });

  routes.post('/account/sessions/end-others', 'signed-in', async (ctx) => {
    await endSessions(runtime.db, webmasterOf(ctx)!.id, { except: sessionIdOf(ctx) });
    seeOther(ctx, `${SECURITY}?ended=1#sessions-heading`, { noStore: true });
  });

  const stillSignedIn = async (ctx: Context): Promise<boolean> =>
    (await listSessions(runtime, webmasterOf(ctx)!.id, sessionIdOf(ctx))).some((session) => session.current);

  return routes;
}
