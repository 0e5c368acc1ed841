import type { Context } from 'koa';
import { compileSchema, CSRF_FIELD, readForm } from '../../http/form.js';
import { seeOther } from '../../http/see-other.js';
import { sha256 } from '../../security/hashing.js';
import { translator } from '../../i18n/catalogue.js';
import { browserLanguage } from '../../i18n/negotiate.js';
import { base32, otpauthUri } from '../../security/totp.js';
import { qrCodeSvg } from '../../verification/challenges/eu-av/qr.js';
import { sessionCeremonies } from '../../visitors/passkey-ceremonies.js';
import { readAuthentication, readRegistration } from '../../visitors/passkey-responses.js';
import {
  authenticationOptions,
  newUserHandle,
  registrationOptions,
  relyingPartyOf,
  verifyAuthentication,
  verifyRegistration,
  type RelyingParty,
} from '../../visitors/passkey-webauthn.js';
import {
  addWebmasterPasskey,
  recordWebmasterPasskeyUse,
  removeWebmasterPasskey,
  webmasterPasskey,
  webmasterPasskeys,
} from '../../webmasters/passkeys.js';
import {
  confirmTotp,
  hasSecondFactor,
  hasTotp,
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
import { oneTimeDisplay } from '../one-time-display.js';
import { formatTimestamp, renderPage } from '../page.js';
import type { PlatformServices } from '../services.js';
import { PlatformRoutes } from '../route-table.js';
import { countFactorAttempt } from '../sessions.js';
import { summariseUserAgent } from '../user-agent.js';

/**
 * Passkeys as the second factor: our browser script (views/static/passkeys.js, shared with the visitors' pages) asks
 * for options, runs the WebAuthn ceremony and posts the answer; each answer here is JSON, `{ location }` to go to or
 * `{ message }` in the page's language. The challenge lives with the platform session (its id's SHA-256), so a new
 * session (the factor given, a sign-out) leaves none behind, and it is spent as it is read.
 */
const relyingParty = (runtime: PlatformServices): RelyingParty =>
  relyingPartyOf(runtime.config.issuer, runtime.config.branding.name);

/** A JSON answer for the script: WebAuthn options, `{ location }` or `{ message }`. */
const answer = (ctx: Context, body: object, status = 200): void => {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
/** The page's words, for the JSON answers the script shows. */
const words = (ctx: Context) => translator(browserLanguage(ctx));
const passkeyResponse = (ctx: Context): unknown =>
  (ctx.request.body as Record<string, unknown> | undefined)?.['response'];
const ceremonyOwner = (ctx: Context): string => sha256(sessionIdOf(ctx));

/** Recovery codes made with a first passkey cross the post/redirect/get once, sealed. */
const CODES_PAGE = `${ENROL_PAGE}/codes`;
const heldCodes = oneTimeDisplay<string[]>(
  'ap_recovery_codes',
  CODES_PAGE,
  (value): value is string[] => Array.isArray(value) && value.every((code) => typeof code === 'string'),
);

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

  routes.get('/signin/second-factor', 'signed-in', async (ctx) => {
    if (!waiting(ctx)) return seeOther(ctx, `${PLATFORM_PATH}/signin`, { noStore: true });
    renderPage(ctx, 'second-factor.njk', { step: 'sign-in', ...(await signInPasskeys(ctx)) });
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
    renderPage(ctx, 'second-factor.njk', { step: 'sign-in', failed: true, ...(await signInPasskeys(ctx)) }, 400);
  });

  async function signInPasskeys(ctx: Context): Promise<{ passkeys: boolean }> {
    return { passkeys: (await webmasterPasskeys(runtime.db, webmasterOf(ctx)!.id)).length > 0 };
  }

  routes.post('/signin/second-factor/passkey/options', 'signed-in', async (ctx) => {
    if (!waiting(ctx)) return answer(ctx, { location: PLATFORM_LANDING });
    const passkeys = await webmasterPasskeys(runtime.db, webmasterOf(ctx)!.id);
    if (passkeys.length === 0) return answer(ctx, { message: words(ctx)('platform.factor.passkey.none') }, 400);
    const options = await authenticationOptions(relyingParty(runtime), passkeys);
    await sessionCeremonies.start(runtime.db, runtime.clock, ceremonyOwner(ctx), 'sign_in', {
      challenge: options.challenge,
      userHandle: null,
    });
    answer(ctx, options);
  });

  /**
   * The passkey must be one of this webmaster's, sign this session's challenge from our origin with the user verified,
   * and show a counter above the one last seen. A refusal counts as a wrong code: five end the session.
   */
  routes.post('/signin/second-factor/passkey', 'signed-in', async (ctx) => {
    if (!waiting(ctx)) return answer(ctx, { location: PLATFORM_LANDING });
    const webmaster = webmasterOf(ctx)!;
    const response = readAuthentication(passkeyResponse(ctx));
    const ceremony = await sessionCeremonies.take(runtime.db, runtime.clock, ceremonyOwner(ctx), 'sign_in');
    const passkey = response && (await webmasterPasskey(runtime.db, webmaster.id, response.id));
    const counter =
      response && ceremony && passkey
        ? await verifyAuthentication(relyingParty(runtime), response, ceremony.challenge, passkey)
        : undefined;
    if (
      passkey &&
      counter !== undefined &&
      (await recordWebmasterPasskeyUse(runtime.db, passkey, counter, runtime.clock.now()))
    ) {
      await advanceSession(ctx, runtime);
      return answer(ctx, { location: PLATFORM_LANDING });
    }
    runtime.log.warn('webmaster passkey refused', {
      reason: !response
        ? 'malformed'
        : !ceremony
          ? 'no live challenge'
          : !passkey
            ? "not this webmaster's"
            : 'signature, origin, user verification or counter',
    });
    if (!(await countFactorAttempt(runtime.db, sessionIdOf(ctx))))
      return answer(ctx, { location: `${PLATFORM_PATH}/signin` });
    answer(ctx, { message: words(ctx)('platform.factor.passkey.refused') }, 401);
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
        totp: await hasTotp(runtime.db, webmaster.id),
        passkeys: (await webmasterPasskeys(runtime.db, webmaster.id)).map((passkey) => ({
          id: passkey.id,
          name: passkey.name,
          added: formatTimestamp(passkey.createdAt),
          lastUsed: passkey.lastUsedAt && formatTimestamp(passkey.lastUsedAt),
        })),
        notice: ctx.query['added'] === 'passkey' ? 'added' : ctx.query['removed'] === 'passkey' ? 'removed' : undefined,
        codesLeft: await recoveryCodesLeft(runtime.db, webmaster.id),
        adding,
        ...variables,
      },
      status,
    );
  }

  routes.get('/account/second-factor', 'signed-in', (ctx) => page(ctx));
  routes.post('/account/second-factor/totp', 'signed-in', async (ctx) => {
    if (!(await hasTotp(runtime.db, webmasterOf(ctx)!.id))) await startTotp(runtime, webmasterOf(ctx)!.id);
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
    if (required && (await webmasterPasskeys(runtime.db, webmaster.id)).length === 0)
      return page(ctx, { removeRefused: true }, 400);
    if (!form || !(await verifySecondFactor(runtime, webmaster.id, form.code)))
      return page(ctx, { removeFailed: true }, 400);
    await removeTotp(runtime, webmaster.id, originOf(ctx));
    seeOther(ctx, ENROL_PAGE, { noStore: true });
  });

  routes.post('/account/second-factor/passkey/options', 'signed-in', async (ctx) => {
    const webmaster = webmasterOf(ctx)!;
    const existing = await webmasterPasskeys(runtime.db, webmaster.id);
    // Every passkey of one webmaster carries the same user handle, so an authenticator keeps one entry for them.
    const userHandle = existing[0]?.userHandle ?? newUserHandle();
    const options = await registrationOptions(relyingParty(runtime), {
      userHandle,
      label: webmaster.email,
      exclude: existing,
    });
    await sessionCeremonies.start(runtime.db, runtime.clock, ceremonyOwner(ctx), 'register', {
      challenge: options.challenge,
      userHandle,
    });
    answer(ctx, options);
  });

  /** Adds the passkey, named after the browser that made it; a first second factor comes with recovery codes. */
  routes.post('/account/second-factor/passkey', 'signed-in', async (ctx) => {
    const webmaster = webmasterOf(ctx)!;
    const response = readRegistration(passkeyResponse(ctx));
    const ceremony = await sessionCeremonies.take(runtime.db, runtime.clock, ceremonyOwner(ctx), 'register');
    const passkey =
      response && ceremony?.userHandle
        ? await verifyRegistration(relyingParty(runtime), response, {
            challenge: ceremony.challenge,
            userHandle: ceremony.userHandle,
          })
        : undefined;
    if (!passkey) return answer(ctx, { message: words(ctx)('platform.factor.passkey.refused') }, 400);
    const { browser, system } = summariseUserAgent(ctx.get('user-agent'));
    const name = [browser, system].filter(Boolean).join(' · ') || words(ctx)('platform.factor.passkey.unnamed');
    const added = await addWebmasterPasskey(runtime, webmaster.id, { ...passkey, name }, originOf(ctx));
    if (!added) return answer(ctx, { message: words(ctx)('platform.factor.passkey.refused') }, 409);
    if (webmaster.stage === 'enrol') await advanceSession(ctx, runtime);
    if (added.recoveryCodes.length === 0) return answer(ctx, { location: `${ENROL_PAGE}?added=passkey` });
    heldCodes.hold(ctx, runtime, webmaster.id, added.recoveryCodes);
    answer(ctx, { location: CODES_PAGE });
  });

  routes.get('/account/second-factor/codes', 'signed-in', (ctx) => {
    const codes = heldCodes.take(ctx, runtime, webmasterOf(ctx)!.id);
    if (!codes) return seeOther(ctx, ENROL_PAGE, { noStore: true });
    ctx.set('Cache-Control', 'no-store');
    renderPage(ctx, 'second-factor.njk', { step: 'codes', codes });
  });

  /** Removes one passkey; where the operator requires a second factor, never the last one. */
  routes.post('/account/second-factor/passkey/remove', 'signed-in', async (ctx) => {
    const form = readForm(ctx, validPasskeyId);
    const webmaster = webmasterOf(ctx)!;
    if (!form) return page(ctx, { removeFailed: true }, 400);
    const passkeys = await webmasterPasskeys(runtime.db, webmaster.id);
    const lastFactor = passkeys.length === 1 && !(await hasTotp(runtime.db, webmaster.id));
    if (required && lastFactor) return page(ctx, { removeRefused: true }, 400);
    if (!(await removeWebmasterPasskey(runtime, webmaster.id, Number(form.passkey), originOf(ctx))))
      return page(ctx, { removeFailed: true }, 404);
    seeOther(ctx, `${ENROL_PAGE}?removed=passkey`, { noStore: true });
  });
  return routes;
}

const validPasskeyId = compileSchema<{ passkey: string; _csrf: string }>({
  type: 'object',
  required: ['passkey', '_csrf'],
  additionalProperties: false,
  properties: { passkey: { type: 'string', pattern: '^[1-9][0-9]{0,15}$' }, ...CSRF_FIELD },
});
