import Router from '@koa/router';
import type { Context } from 'koa';
import { formBody } from '../../../http/body.js';
import { bindCsrf, RELAYED_FORM_BINDING, requireCsrf } from '../../../http/csrf.js';
import { HttpError } from '../../../http/errors.js';
import { sameOrigin } from '../../../http/same-origin.js';
import { rateLimit } from '../../../http/rate-limit.js';
import { render } from '../../../http/render.js';
import { seeOther } from '../../../http/see-other.js';
import { browserLanguage } from '../../../i18n/negotiate.js';
import { interactionPaths } from '../../../oauth2/interactions/paths.js';
import type { ChallengeServices } from '../../services.js';
import { responseParameters } from './answer.js';
import { readStateBinding } from './binding.js';
import { displayNameOf } from '../../catalogue.js';
import { federatedCallbackPath, type FederatedProvider } from './providers.js';

/**
 * The fixed redirect URI the operator registers with `provider`. The sealed `state` names the interaction;
 * the answer is handed to that interaction's `callback` step, whose path carries oidc-provider's interaction
 * cookie, so only the browser that started the check can finish it. Nothing here checks the answer itself.
 */
export function federatedCallbackRoutes(runtime: ChallengeServices, provider: FederatedProvider): Router {
  const router = new Router();
  router.use((ctx, next) => {
    bindCsrf(ctx, RELAYED_FORM_BINDING);
    return next();
  });
  // A visitor comes back once or twice per check; a shared address (office, mobile carrier) gets room for many.
  const limit = rateLimit(runtime.rateLimits.limiter('federated-callback-ip'), (ctx) => ctx.ip);

  const language = browserLanguage;

  /** The callback step of the interaction the state names, or a page saying the link is not valid. */
  const stepOf = (ctx: Context, state: string | null): string | undefined => {
    const binding = state === null ? undefined : readStateBinding(runtime.sealer, state);
    if (binding?.challenge === provider.settings.name)
      return interactionPaths(binding.uid).step(provider.settings.name, 'callback');
    render(
      ctx,
      'challenges/federated-problem.njk',
      language(ctx),
      { provider: displayNameOf(provider.settings.name), problem: 'unknown' },
      400,
    );
    return undefined;
  };

  const path = federatedCallbackPath(provider.settings.name);
  router.get(path, limit, (ctx) => {
    const response = responseParameters(ctx.query);
    // Fragment answers (AgeKey) never reach a server: our page reads the fragment and posts it back here.
    if (provider.settings.responseMode === 'fragment' && [...response.keys()].length === 0) {
      render(ctx, 'challenges/federated-relay.njk', language(ctx), {
        provider: displayNameOf(provider.settings.name),
        action: ctx.path,
      });
      return;
    }
    const step = stepOf(ctx, response.get('state'));
    if (!step) return;
    seeOther(ctx, `${step}?${response.toString()}`);
  });

  router.post(path, limit, sameOrigin(runtime.config.issuer), formBody('16kb'), requireCsrf, (ctx) => {
    if (provider.settings.responseMode !== 'fragment') throw new HttpError(405, 'Method Not Allowed');
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const step = stepOf(ctx, responseParameters(body).get('state'));
    if (!step) return;
    // 307 keeps the method and the body (the fields and the form token) for the interaction's own step.
    ctx.status = 307;
    ctx.redirect(step);
  });

  return router;
}
