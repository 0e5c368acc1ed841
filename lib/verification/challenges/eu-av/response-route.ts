import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { formBody } from '../../../http/body.js';
import { describeError, oauthJsonError } from '../../../http/errors.js';
import { compileSchema } from '../../../http/form.js';
import { rateLimit } from '../../../http/rate-limit.js';
import { readProgress, swapChallengeState } from '../../../oauth2/interactions/progress.js';
import type { Runtime } from '../../../runtime.js';
import { safeEqual } from '../../../security/hashing.js';
import { readStateBinding } from '../federated/binding.js';
import { RESPONSE_PATH, verifierIdentity, type PendingPresentation } from './request.js';
import type { EuAvSettings } from './settings.js';
import { redirectTranscript } from './transcript.js';
import { judgePresentation, presentationOf, verdictLog } from './verify.js';

/** A DeviceResponse with one element and a two-certificate x5chain is a few KiB; anything near this limit is not one. */
export const RESPONSE_BODY_LIMIT = '64kb';

interface WalletResponse {
  state: string;
  vp_token?: string;
  error?: string;
}

const validateResponse = compileSchema<WalletResponse>({
  type: 'object',
  required: ['state'],
  properties: {
    state: { type: 'string', minLength: 1, maxLength: 2000 },
    vp_token: { type: 'string', minLength: 1, maxLength: 60000, nullable: true },
    error: { type: 'string', minLength: 1, maxLength: 200, nullable: true },
  },
});

/** Errors on this endpoint answer the wallet in OAuth JSON (OpenID4VP 1.0 §8.2), never HTML; a 5xx is logged. */
const walletErrors = (runtime: Runtime): Middleware => async (ctx, next) => {
  try {
    await next();
  } catch (error) {
    const { status, message, headers } = describeError(error);
    if (status >= 500) runtime.log.error('eu_av response endpoint failed', { error: String(error) });
    oauthJsonError(ctx, status, status === 429 ? 'slow_down' : status >= 500 ? 'server_error' : 'invalid_request', message, headers);
  }
};

/**
 * POST /v1/oauth2/eu-av/response: the wallet's direct_post answer. The sealed `state` names the interaction; the
 * verdict is written into that interaction's challenge state, once (a second answer for the same request is refused),
 * and the visitor's page picks it up. Nothing of the presentation is kept.
 */
export function walletResponseRoutes(runtime: Runtime, settings: EuAvSettings): Router {
  const router = new Router();
  const { clientId, responseUri } = verifierIdentity(runtime.config.issuer);
  const limit = rateLimit(runtime.rateLimits.limiter({ name: 'eu-av-response-ip', points: 60, duration: 600 }), (ctx) => ctx.ip);
  const refuse = (ctx: Context, description: string): void => oauthJsonError(ctx, 400, 'invalid_request', description);

  router.post(RESPONSE_PATH, walletErrors(runtime), limit, formBody(RESPONSE_BODY_LIMIT), async (ctx) => {
    const body: unknown = ctx.request.body ?? {};
    if (!validateResponse(body) || (body.vp_token === undefined) === (body.error === undefined)) return refuse(ctx, 'state and either vp_token or error are required');
    const binding = readStateBinding(runtime.sealer, body.state);
    const progress = binding?.challenge === 'eu_av' ? await readProgress(runtime.db, runtime.clock, binding.uid) : undefined;
    const sealed = progress?.challenge?.name === 'eu_av' ? progress.challenge.sealedState : undefined;
    const pending = sealed === undefined ? undefined : (JSON.parse(runtime.sealer.unseal(sealed)) as PendingPresentation);
    if (!binding || !sealed || !pending || pending.answer || !safeEqual(body.state, pending.state)) {
      return refuse(ctx, 'this request is unknown, was replaced, or was already answered');
    }

    const presentation = body.vp_token === undefined ? undefined : presentationOf(body.vp_token);
    const judged = body.vp_token === undefined
      ? { verdict: 'declined' as const }
      : presentation
        ? await judgePresentation(presentation, settings.trustedIssuers, {
          transcript: redirectTranscript({ clientId, responseUri, nonce: pending.nonce }), threshold: pending.threshold, now: runtime.clock.now(),
        })
        : { verdict: 'invalid' as const, problem: 'vp_token is not one presentation for the query' };
    const answered: PendingPresentation = { ...pending, answer: judged.verdict };
    if (!(await swapChallengeState(runtime.db, binding.uid, 'eu_av', sealed, runtime.sealer.seal(JSON.stringify(answered))))) {
      return refuse(ctx, 'this request was already answered');
    }
    runtime.log.info('eu_av presentation received', verdictLog(binding.uid, 'direct_post', judged));
    if (judged.verdict === 'invalid') return refuse(ctx, 'the presentation was not accepted');
    ctx.body = {};
  });
  return router;
}
