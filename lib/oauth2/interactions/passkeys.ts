import type Router from '@koa/router';
import type { Context, Middleware, ParameterizedContext } from 'koa';
import { interactionCeremonies, type CeremonyPurpose } from '../../visitors/passkey-ceremonies.js';
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
  addPasskey,
  createPasskeyAccount,
  findPasskey,
  passkeysOf,
  recordPasskeyUse,
} from '../../visitors/passkeys.js';
import { requireCsrf } from '../../http/csrf.js';
import type { Limiter } from '../../http/rate-limit.js';
import { seeOther } from '../../http/see-other.js';
import { translator } from '../../i18n/catalogue.js';
import { accountSubject, proofOf, saveProof } from '../../verification/proofs.js';
import { readyToVerify } from './page.js';
import { readAuthentication, readRegistration } from '../../visitors/passkey-responses.js';
import { updateProgress } from './progress.js';
import { continueSignedIn } from './signed-in.js';
import type { InteractionServices, PageHandler, Visit, VisitState } from './visit.js';
import { INTERACTION_ROUTES } from './paths.js';

/**
 * Passkeys for reuse (docs/challenges.md): after a verification the visitor saves the result to a passkey (a new
 * account that is the passkey alone) or adds a passkey to the account they signed in to; later they sign in with
 * it instead of a password. Our browser script (views/static/passkeys.js) asks for options, runs the WebAuthn
 * ceremony and posts the answer; every answer here is JSON, a redirect becoming `{ location }` for the script to follow.
 */

type Problem = 'expired' | 'invalid' | 'refused' | 'unknown';

interface PasskeyServices {
  rp: RelyingParty;
  /** passkey sign-in attempts per address (a signature cannot be guessed, but each check costs work and a row) */
  signInPerIp: Limiter;
  /** passkeys saved per address: each may create an account */
  registrationPerIp: Limiter;
}

/** The answer the script reads: what went wrong, in the visitor's language. */
function refuse(visit: Visit, problem: Problem, status: number): void {
  const { ctx } = visit;
  ctx.status = status;
  ctx.body = { error: problem, message: translator(visit.language)(`interaction.passkey.error.${problem}`) };
}

/** Our own origin only (the WebAuthn answer names its origin too, checked by the library): a second line behind the CSRF token. */
const requireOwnOrigin =
  (rp: RelyingParty): Middleware =>
  async (ctx, next) => {
    if (ctx.get('Origin') !== rp.origin) {
      ctx.status = 403;
      ctx.body = { error: 'origin' };
      return;
    }
    await next();
  };

/** Runs a page handler for the script: a redirect it ends with becomes `{ location }` (fetch cannot read a redirect it does not follow). */
async function asJson(ctx: Context, run: () => Promise<void>): Promise<void> {
  await run();
  if (ctx.status !== 303) return;
  const location = ctx.response.get('Location');
  ctx.remove('Location');
  ctx.status = 200;
  ctx.body = { location };
}

async function sendOptions(
  visit: Visit,
  purpose: CeremonyPurpose,
  options: { challenge: string },
  userHandle: string | null,
): Promise<void> {
  const {
    services: { runtime },
    ctx,
  } = visit;
  await interactionCeremonies.start(runtime.db, runtime.clock, visit.uid, purpose, {
    challenge: options.challenge,
    userHandle,
  });
  ctx.set('Cache-Control', 'no-store');
  ctx.body = options;
}

/**
 * A passkey may be saved on the result page (a verification waiting to be handed over) or added while signed in
 * (the choice page); anywhere else the visitor goes back to the start.
 */
function maySavePasskey(visit: Visit): boolean {
  if (visit.progress.verificationUid || visit.progress.accountId !== null) return true;
  seeOther(visit.ctx, visit.paths.root);
  return false;
}

const registerOptions =
  (passkeys: PasskeyServices): PageHandler =>
  async (visit) => {
    const { services } = visit;
    if (!maySavePasskey(visit)) return;
    const { accountId } = visit.progress;
    const existing = accountId === null ? [] : await passkeysOf(services.runtime.db, accountId);
    // Every passkey of one account carries the same user handle, so an authenticator keeps one entry per account.
    const userHandle = existing[0]?.userHandle ?? newUserHandle();
    const label = translator(visit.language)('interaction.passkey.label');
    await sendOptions(
      visit,
      'register',
      await registrationOptions(passkeys.rp, { userHandle, label, exclude: existing }),
      userHandle,
    );
  };

/**
 * Saves the new passkey. Without an account yet, the passkey becomes one and keeps the verification's result for
 * PROOF_REUSE_TTL, as a password account would; with one, it is added. The visitor then sees the result page again
 * (or the choice page) with a notice, and continues from there.
 */
const register =
  (passkeys: PasskeyServices): PageHandler =>
  async (visit) => {
    const { services, ctx } = visit;
    if (!maySavePasskey(visit)) return;
    const { runtime } = services;
    const response = readRegistration((ctx.request.body as Record<string, unknown> | undefined)?.['response']);
    if (!response) return refuse(visit, 'invalid', 400);
    const ceremony = await interactionCeremonies.take(runtime.db, runtime.clock, visit.uid, 'register');
    if (!ceremony?.userHandle) return refuse(visit, 'expired', 400);
    await passkeys.registrationPerIp.consume(ctx.ip);
    const passkey = await verifyRegistration(passkeys.rp, response, {
      challenge: ceremony.challenge,
      userHandle: ceremony.userHandle,
    });
    if (!passkey) return refuse(visit, 'refused', 400);

    const { accountId, verificationUid, verification } = visit.progress;
    if (accountId !== null) {
      if (!(await addPasskey(runtime.db, accountId, passkey))) return refuse(visit, 'refused', 409);
    } else {
      const newAccountId = await createPasskeyAccount(runtime.db, passkey);
      if (newAccountId === undefined) return refuse(visit, 'refused', 409);
      if (verification)
        await saveProof(runtime.db, proofOf(verification, accountSubject(newAccountId), runtime.config.proofReuseTtl));
      await updateProgress(runtime.db, visit.uid, visit.expiresAt, { account_id: newAccountId });
    }
    seeOther(
      ctx,
      verificationUid ? `${visit.paths.result}?notice=passkey_saved` : `${visit.paths.choose}?notice=passkey_added`,
    );
  };

const signInOptions =
  (passkeys: PasskeyServices): PageHandler =>
  async (visit) => {
    if (!readyToVerify(visit)) return;
    await sendOptions(visit, 'sign_in', await authenticationOptions(passkeys.rp), null);
  };

/**
 * Signs in with a passkey: the credential must be one of ours, sign this interaction's challenge with the user
 * verified, and show a counter above the one last seen (a cloned authenticator is refused). What follows is the
 * same as after a password (continueSignedIn).
 */
const signIn =
  (passkeys: PasskeyServices): PageHandler =>
  async (visit) => {
    const { services, ctx } = visit;
    if (!readyToVerify(visit)) return;
    const { runtime } = services;
    await passkeys.signInPerIp.consume(ctx.ip);
    const response = readAuthentication((ctx.request.body as Record<string, unknown> | undefined)?.['response']);
    if (!response) return refuse(visit, 'invalid', 400);
    const ceremony = await interactionCeremonies.take(runtime.db, runtime.clock, visit.uid, 'sign_in');
    if (!ceremony) return refuse(visit, 'expired', 400);
    const passkey = await findPasskey(runtime.db, response.id);
    if (!passkey) return refuse(visit, 'unknown', 401);
    const newCounter = await verifyAuthentication(passkeys.rp, response, ceremony.challenge, passkey);
    if (newCounter === undefined || !(await recordPasskeyUse(runtime.db, passkey, newCounter, runtime.clock.now()))) {
      runtime.log.warn('passkey refused', {
        reason: newCounter === undefined ? 'signature, origin, user verification or counter' : 'counter raced',
      });
      return refuse(visit, 'refused', 401);
    }
    await continueSignedIn(visit, passkey.accountId);
  };

/** Adds the passkey endpoints to the interaction router (POST only, each with the form token and our Origin). */
export function addPasskeyRoutes(
  router: Router<VisitState>,
  services: InteractionServices,
  page: (handler: PageHandler) => (ctx: ParameterizedContext<VisitState>) => Promise<void>,
): void {
  const { runtime } = services;
  const limiter = runtime.rateLimits.limiter.bind(runtime.rateLimits);
  const passkeys: PasskeyServices = {
    rp: relyingPartyOf(runtime.config.issuer, translator('en')('brand.name')),
    signInPerIp: limiter('visitor-passkey-sign-in-ip'),
    registrationPerIp: limiter('visitor-passkey-register-ip'),
  };
  const json = (handler: PageHandler) => (ctx: ParameterizedContext<VisitState>) =>
    asJson(ctx, () => page(handler)(ctx));
  const guards = [requireOwnOrigin(passkeys.rp), requireCsrf];
  router.post(INTERACTION_ROUTES.passkeyRegisterOptions, ...guards, json(registerOptions(passkeys)));
  router.post(INTERACTION_ROUTES.passkeyRegister, ...guards, json(register(passkeys)));
  router.post(INTERACTION_ROUTES.passkeySignInOptions, ...guards, json(signInOptions(passkeys)));
  router.post(INTERACTION_ROUTES.passkeySignIn, ...guards, json(signIn(passkeys)));
}
