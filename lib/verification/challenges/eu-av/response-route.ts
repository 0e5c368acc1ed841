import type { Middleware } from 'koa';
import Router from '@koa/router';
import { formBody } from '../../../http/body.js';
import { HttpError } from '../../../http/errors.js';
import { oauthErrors } from '../../../http/oauth-errors.js';
import { rateLimit } from '../../../http/rate-limit.js';
import { interactionPaths } from '../../../oauth2/interactions/paths.js';
import { readProgress, swapChallengeState } from '../../../oauth2/interactions/progress.js';
import type { ChallengeServices } from '../../services.js';
import { randomToken, safeEqual, sha256 } from '../../../security/hashing.js';
import { readWalletAnswer } from './answer.js';
import { answerLimits } from './limits.js';
import {
  CHANNELS,
  readPending,
  RESPONSE_PATH,
  uidOfState,
  verifierIdentity,
  type Channel,
  type PendingPresentation,
} from './request.js';
import type { EuAvSettings } from './settings.js';
import { redirectTranscript } from './transcript.js';
import { judgeVpToken, verdictLog } from './verify.js';

/** A DeviceResponse with one element and a two-certificate x5chain is a few KiB; anything near this limit is not one. */
export const RESPONSE_BODY_LIMIT = '64kb';

/** The request a `state` names, while it waits for its one answer: the interaction, the sealed state as stored, its content, and which request. */
interface WaitingRequest {
  uid: string;
  sealed: string;
  pending: PendingPresentation;
  channel: Channel;
}

async function waitingRequest(runtime: ChallengeServices, state: string): Promise<WaitingRequest | undefined> {
  const uid = uidOfState(state);
  if (!uid) return undefined;
  const { challenge } = await readProgress(runtime.db, runtime.clock, uid);
  if (challenge?.name !== 'eu_av') return undefined;
  const pending = readPending(JSON.parse(runtime.sealer.unseal(challenge.sealedState)));
  // A reload replaced the requests (an older QR code or link), or an answer already counted.
  const channel = pending && CHANNELS.find((name) => safeEqual(state, pending.requests[name].state));
  if (!pending || pending.answer || !channel) return undefined;
  return { uid, sealed: challenge.sealedState, pending, channel };
}

/**
 * POST /v1/oauth2/eu-av/response: the wallet's direct_post answer. `state` names the interaction and which of its two
 * requests is answered; the verdict is written into that interaction's challenge state, once (a second answer for the
 * same page view is refused), and the visitor's page picks it up. A pass through the same-device request is answered
 * with a `redirect_uri` carrying a one-time response code: the wallet sends the visitor's browser there, and only that
 * browser (the interaction's own) turns the pass into a verification. Nothing of the presentation is kept.
 */
export function walletResponseRoutes(runtime: ChallengeServices, settings: EuAvSettings): Router {
  const router = new Router();
  const { issuer } = runtime.config;
  const { clientId, responseUri } = verifierIdentity(issuer);
  const limits = answerLimits(runtime);
  const refuse = (description: string): never => {
    throw new HttpError(400, description, {}, 'invalid_request');
  };

  const perAddress = rateLimit(runtime.rateLimits.limiter('eu-av-response-ip'), (ctx) => ctx.ip);
  const noStore: Middleware = async (ctx, next) => {
    // A pass carries a one-time response code in its redirect_uri: no cache may keep any answer of this endpoint.
    ctx.set('Cache-Control', 'no-store');
    await next();
  };

  router.post(RESPONSE_PATH, noStore, oauthErrors(), perAddress, formBody(RESPONSE_BODY_LIMIT), async (ctx) => {
    const answer = readWalletAnswer(ctx.request.body ?? {});
    if (!answer) return refuse('state and either vp_token or error are required');
    const waiting = await waitingRequest(runtime, answer.state);
    if (!waiting) return refuse('this request is unknown, was replaced, or was already answered');
    const { uid, sealed, pending, channel } = waiting;
    await limits.spend(uid, pending.requests[channel].state);

    const nonce = pending.requests[channel].nonce;
    const judged =
      answer.vpToken === undefined
        ? { verdict: 'declined' as const }
        : await judgeVpToken(answer.vpToken, settings.trustedIssuers, {
            transcript: redirectTranscript({ clientId, responseUri, nonce }),
            threshold: pending.threshold,
            now: runtime.clock.now(),
            statuses: settings.statuses,
          });
    // The wallet on this device brings the visitor back; a pass carries the code that proves it is the interaction's
    // own browser, a failure needs no such proof.
    const returning = channel === 'same_device' && !('problem' in judged);
    const responseCode = returning && judged.verdict === 'over' ? randomToken(24) : undefined;
    const answered: PendingPresentation = {
      ...pending,
      answer: judged.verdict,
      answeredBy: channel,
      ...(responseCode ? { responseCodeHash: sha256(responseCode) } : {}),
    };
    if (!(await swapChallengeState(runtime.db, uid, 'eu_av', sealed, runtime.sealer.seal(JSON.stringify(answered))))) {
      return refuse('this request was already answered');
    }
    runtime.log.info('eu_av presentation received', { ...verdictLog(uid, 'direct_post', judged), channel });
    if ('problem' in judged) return refuse('the presentation was not accepted');
    const back = `${issuer}${interactionPaths(uid).step('eu_av', 'return')}`;
    ctx.body = returning ? { redirect_uri: responseCode ? `${back}?response_code=${responseCode}` : back } : {};
  });
  return router;
}
