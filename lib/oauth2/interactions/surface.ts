import Router from '@koa/router';
import type { Middleware, ParameterizedContext } from 'koa';
import { formBody } from '../../http/body.js';
import { bindCsrf, RELAYED_FORM_BINDING, requireCsrf } from '../../http/csrf.js';
import { sameOrigin } from '../../http/same-origin.js';
import { schedulePeriodic } from '../../periodic.js';
import type { OAuth2Services } from '../services.js';
import type { SurfaceBuilder } from '../../http/surface.js';
import { OAUTH2_PATHS } from '../protocol.js';
import { runChallengeStep } from './challenge-steps.js';
import { showChoice } from './choose.js';
import { answerPrompt, cancel, showEntry } from './entry.js';
import { interactionLimits } from './limits.js';
import { passkeysWorkAt } from '../../visitors/passkey-webauthn.js';
import { addPasskeyRoutes } from './passkeys.js';
import { sweepExpiredProgress } from './progress.js';
import { continueToWebsite, saveToAccount, showVerificationResult } from './result.js';
import { reuseBrowserProof } from './reuse.js';
import { showSignIn, signIn } from './sign-in.js';
import { loadVisit, type InteractionServices, type PageHandler, type VisitState } from './visit.js';
import { visitorErrors } from '../../http/visitor-errors.js';
import { seeOther } from '../../http/see-other.js';
import { INTERACTION_ROUTES } from './paths.js';

const SWEEP_EVERY_MS = 10 * 60 * 1000;

/**
 * A challenge step may take a file (multipart/form-data, e.g. a selfie): the body parser leaves that stream to the
 * challenge, which checks `_csrf` itself once it has read the fields (see Challenge.handle). Every other POST is checked here.
 */
const csrfUnlessUpload: Middleware = (ctx, next) => {
  if (ctx.is('multipart/form-data')) return next();
  // A federated answer relayed from the page at the fixed callback URI carries that page's token (see RELAYED_FORM_BINDING).
  if (ctx.params['step'] === 'callback') bindCsrf(ctx, RELAYED_FORM_BINDING);
  return requireCsrf(ctx, next);
};

/**
 * The visitor's pages of an authorization, under the path oidc-provider sends the visitor to: prompt, challenge
 * choice, sign-in, challenge steps, result. Mount it before the provider. The operator's challenges are built here,
 * at start-up.
 */
export const interactionsSurface: SurfaceBuilder<OAuth2Services> = ({ runtime, provider }) => {
  const services: InteractionServices = {
    runtime,
    provider,
    registry: runtime.challenges,
    limits: interactionLimits(runtime),
    passkeys: passkeysWorkAt(runtime.config.issuer),
  };
  if (!services.passkeys) {
    runtime.log.warn(
      'passkeys are not offered: browsers use them only at an https issuer named by host (or http://localhost), and ISSUER is not one (docs/challenges.md "Passkeys")',
      { issuer: runtime.config.issuer },
    );
  }
  schedulePeriodic(runtime, {
    name: 'sweeping interaction progress',
    everyMs: SWEEP_EVERY_MS,
    run: () => sweepExpiredProgress(runtime.db, runtime.clock),
  });

  const page = (handler: PageHandler) => (ctx: ParameterizedContext<VisitState>) => handler(ctx.state.visit);
  const router = new Router<VisitState>({ prefix: OAUTH2_PATHS.interaction(':uid') });
  // The visit is loaded before the CSRF check so that even a refused form is answered in the visitor's language,
  // and every form token is bound to this interaction.
  router.use(visitorErrors(runtime.log), sameOrigin(runtime.config.issuer), formBody(), async (ctx, next) => {
    const visit = await loadVisit(ctx, services);
    // Ended by an earlier submit and waiting for its resume: a repeated post lands where the first did, and runs nothing.
    if (ctx.method === 'POST' && visit.interaction.result) return seeOther(ctx, visit.interaction.returnTo);
    ctx.state.visit = visit;
    bindCsrf(ctx, `interaction:${visit.uid}`);
    await next();
  });
  const routes = INTERACTION_ROUTES;
  router.get(routes.root, page(showEntry));
  router.post(routes.consent, requireCsrf, page(answerPrompt));
  router.get(routes.choose, page(showChoice));
  router.get(routes.signIn, page(showSignIn));
  router.post(routes.signIn, requireCsrf, page(signIn));
  router.post(routes.reuse, requireCsrf, page(reuseBrowserProof));
  router.post(routes.cancel, requireCsrf, page(cancel));
  router.get(routes.result, page(showVerificationResult));
  router.post(routes.saveResult, requireCsrf, page(saveToAccount));
  router.post(routes.continueResult, requireCsrf, page(continueToWebsite));
  router.get(routes.step, page(runChallengeStep));
  router.post(routes.step, csrfUnlessUpload, page(runChallengeStep));
  addPasskeyRoutes(router, services, page);
  // The challenges' own endpoints (a wallet's response URI) live outside the interaction prefix.
  const mounted = new Router();
  mounted.use(router.routes());
  for (const routes of services.registry.routes) mounted.use(routes.routes());
  return [mounted.routes() as Middleware];
};
