import Router from '@koa/router';
import { formBody } from '../../../http/body.js';
import { HttpError } from '../../../http/errors.js';
import { oauthErrors } from '../../../http/oauth-errors.js';
import { compileSchema } from '../../../http/form.js';
import { rateLimit } from '../../../http/rate-limit.js';
import { readProgress, swapChallengeState } from '../../../oauth2/interactions/progress.js';
import type { Runtime } from '../../../runtime.js';
import { safeEqual } from '../../../security/hashing.js';
import { readStateBinding } from '../federated/binding.js';
import { RESPONSE_PATH, verifierIdentity, type PendingPresentation } from './request.js';
import type { EuAvSettings } from './settings.js';
import { redirectTranscript } from './transcript.js';
import { judgeVpToken, verdictLog } from './verify.js';

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


/** The request a `state` names, while it waits for its one answer: the interaction, the sealed state as stored, and its content. */
interface WaitingRequest {
  uid: string;
  sealed: string;
  pending: PendingPresentation;
}

async function waitingRequest(runtime: Runtime, state: string): Promise<WaitingRequest | undefined> {
  const binding = readStateBinding(runtime.sealer, state);
  if (binding?.challenge !== 'eu_av') return undefined;
  const { challenge } = await readProgress(runtime.db, runtime.clock, binding.uid);
  if (challenge?.name !== 'eu_av') return undefined;
  const pending = JSON.parse(runtime.sealer.unseal(challenge.sealedState)) as PendingPresentation;
  // A reload replaced the state (older QR code), or an answer already counted.
  if (pending.answer || !safeEqual(state, pending.state)) return undefined;
  return { uid: binding.uid, sealed: challenge.sealedState, pending };
}

/**
 * POST /v1/oauth2/eu-av/response: the wallet's direct_post answer. The sealed `state` names the interaction; the
 * verdict is written into that interaction's challenge state, once (a second answer for the same request is refused),
 * and the visitor's page picks it up. Nothing of the presentation is kept.
 */
export function walletResponseRoutes(runtime: Runtime, settings: EuAvSettings): Router {
  const router = new Router();
  const { clientId, responseUri } = verifierIdentity(runtime.config.issuer);
  const limit = rateLimit(runtime.rateLimits.limiter('eu-av-response-ip'), (ctx) => ctx.ip);
  const refuse = (description: string): never => {
    throw new HttpError(400, description, {}, 'invalid_request');
  };

  router.post(RESPONSE_PATH, oauthErrors(), limit, formBody(RESPONSE_BODY_LIMIT), async (ctx) => {
    const body: unknown = ctx.request.body ?? {};
    if (!validateResponse(body) || (body.vp_token === undefined) === (body.error === undefined)) return refuse('state and either vp_token or error are required');
    const waiting = await waitingRequest(runtime, body.state);
    if (!waiting) return refuse('this request is unknown, was replaced, or was already answered');

    const { uid, sealed, pending } = waiting;
    const judged = body.vp_token === undefined
      ? { verdict: 'declined' as const }
      : await judgeVpToken(body.vp_token, settings.trustedIssuers, {
          transcript: redirectTranscript({ clientId, responseUri, nonce: pending.nonce }), threshold: pending.threshold, now: runtime.clock.now(),
        });
    const answered: PendingPresentation = { ...pending, answer: judged.verdict };
    if (!(await swapChallengeState(runtime.db, uid, 'eu_av', sealed, runtime.sealer.seal(JSON.stringify(answered))))) {
      return refuse('this request was already answered');
    }
    runtime.log.info('eu_av presentation received', verdictLog(uid, 'direct_post', judged));
    if (judged.verdict === 'invalid') return refuse('the presentation was not accepted');
    ctx.body = {};
  });
  return router;
}
