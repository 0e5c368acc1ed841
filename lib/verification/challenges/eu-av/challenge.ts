import { CSRF_FIELD, compileSchema, readForm } from '../../../http/form.js';
import { readProgress, swapChallengeState } from '../../../oauth2/interactions/progress.js';
import { safeEqual, sha256 } from '../../../security/hashing.js';
import { isFreeByDefault } from '../../catalogue.js';
import type { Challenge, ChallengeOutcome, StepContext } from '../../challenge.js';
import { answerLimits } from './limits.js';
import { answerCounts, dcApiRequest, newPending, walletRequestUrl, type PendingPresentation } from './request.js';
import { qrCodeSvg } from './qr.js';
import type { EuAvSettings } from './settings.js';
import { dcApiTranscript } from './transcript.js';
import { judgeVpToken, verdictLog } from './verify.js';

interface BrowserAnswer {
  _csrf: string;
  vp_token: string;
}

/** The Digital Credentials API's answer, posted by our page script with the form token. */
const validateBrowserAnswer = compileSchema<BrowserAnswer>({
  type: 'object',
  additionalProperties: false,
  required: ['_csrf', 'vp_token'],
  properties: { ...CSRF_FIELD, vp_token: { type: 'string', minLength: 1, maxLength: 30000 } },
});

/** How the wallet's answer (written by the response endpoint) ends the challenge. */
const OUTCOMES: Record<NonNullable<PendingPresentation['answer']>, (settings: EuAvSettings) => ChallengeOutcome> = {
  over: (settings) => ({ passed: true, assuranceLevel: settings.assuranceLevel }),
  under: () => ({ passed: false, reason: 'failed' }),
  invalid: () => ({ passed: false, reason: 'failed' }),
  declined: () => ({ passed: false, reason: 'cancelled' }),
};

/** What the page says while no answer counts yet. */
type Waiting = 'not_yet' | 'limited' | undefined;

/**
 * eu_av: the EU age-verification attestation (or the PID, an ISO mdoc either) presented by the visitor's wallet over
 * OpenID4VP 1.0. The page shows a QR code (a wallet on another device) and links (a wallet on this device), each its
 * own request; the wallet posts its answer to the response endpoint (response-route.ts). A same-device pass counts
 * when the wallet brings this browser back to `return` with the response code; an answer to the QR code is noticed
 * by polling `status` or on "continue".
 */
export function createEuAvChallenge(settings: EuAvSettings, issuer: string): Challenge {
  async function showRequest(context: StepContext, pending: PendingPresentation, waiting: Waiting = undefined): Promise<void> {
    const { threshold, requests } = pending;
    const [qrScheme = 'av'] = settings.walletSchemes;
    context.render('challenges/eu-av.njk', {
      age: threshold,
      walletLinks: settings.walletSchemes.map((scheme) => ({ scheme, href: walletRequestUrl(scheme, issuer, threshold, requests.same_device) })),
      qrSvg: await qrCodeSvg(walletRequestUrl(qrScheme, issuer, threshold, requests.cross_device)),
      statusUrl: context.stepUrl('status'),
      continueUrl: context.stepUrl('continue'),
      leaveUrl: context.stepUrl('leave'),
      dcApiUrl: context.stepUrl('dc-api'),
      dcRequest: JSON.stringify(dcApiRequest(pending)),
      waiting,
    });
  }

  /** Fresh requests (nonces and states) each time the page is opened; an older QR code or link then answers nothing. */
  async function start(context: StepContext): Promise<void> {
    const pending = newPending(context.attempt.uid, context.attempt.ageThreshold);
    await context.state.set(pending);
    await showRequest(context, pending);
  }

  const limitReached = (context: StepContext, pending: PendingPresentation): Promise<boolean> =>
    answerLimits(context.runtime).exhausted(context.attempt.uid, pending);

  /** Whether an answer counts now, or the wallet's answers are refused for a while; for the page's script, nothing about the answer. */
  async function status(context: StepContext): Promise<void> {
    const pending = await context.state.get<PendingPresentation>();
    context.koa.set('Cache-Control', 'no-store');
    const answered = Boolean(pending && answerCounts(pending));
    context.koa.body = { answered, ...(pending && !answered && (await limitReached(context, pending)) ? { limited: true } : {}) };
  }

  async function proceed(context: StepContext): Promise<void> {
    const pending = await context.state.get<PendingPresentation>();
    if (!pending) return start(context);
    if (!answerCounts(pending) || !pending.answer) return showRequest(context, pending, (await limitReached(context, pending)) ? 'limited' : 'not_yet');
    return context.finish(OUTCOMES[pending.answer](settings));
  }

  /**
   * GET return?response_code=…: where the wallet on this device sends the visitor back. The interaction is this
   * browser's (its cookie), so a code another browser opens is refused before it gets here; a pass counts once, the
   * code spent by a compare-and-swap of the state, so two presentations at once record one verification.
   */
  async function comeBack(context: StepContext): Promise<void> {
    const code = context.koa.query['response_code'];
    const { runtime, attempt } = context;
    const stored = (await readProgress(runtime.db, runtime.clock, attempt.uid)).challenge;
    const pending = stored?.name === 'eu_av' ? (JSON.parse(runtime.sealer.unseal(stored.sealedState)) as PendingPresentation) : undefined;
    if (!stored || !pending?.responseCodeHash || pending.answer !== 'over') return proceed(context);
    if (typeof code !== 'string' || !safeEqual(sha256(code), pending.responseCodeHash)) {
      runtime.log.info('eu_av response code refused', { uid: attempt.uid });
      return showRequest(context, pending, 'not_yet');
    }
    const counted: PendingPresentation = { ...pending, responseCodeHash: undefined, counted: true };
    if (!(await swapChallengeState(runtime.db, attempt.uid, 'eu_av', stored.sealedState, runtime.sealer.seal(JSON.stringify(counted))))) {
      return showRequest(context, pending, 'not_yet');
    }
    return context.finish(OUTCOMES.over(settings));
  }

  /**
   * The answer the browser's Digital Credentials API returned to our page: the same checks, with the session
   * transcript bound to our origin instead of the response URI. The challenge ends with it, so it counts once.
   */
  async function fromBrowser(context: StepContext): Promise<void> {
    const pending = await context.state.get<PendingPresentation>();
    if (!pending || pending.answer) return proceed(context);
    const form = readForm(context.koa, validateBrowserAnswer);
    const judged = await judgeVpToken(form?.vp_token ?? '', settings.trustedIssuers, {
      transcript: dcApiTranscript({ origin: new URL(issuer).origin, nonce: pending.dcApiNonce }), threshold: pending.threshold, now: context.runtime.clock.now(),
    });
    context.runtime.log.info('eu_av presentation received', verdictLog(context.attempt.uid, 'dc_api', judged));
    return context.finish(OUTCOMES[judged.verdict](settings));
  }

  return {
    name: 'eu_av',
    free: isFreeByDefault('eu_av'),
    assuranceLevel: settings.assuranceLevel,
    steps: {
      start: { GET: start },
      status: { GET: status },
      continue: { POST: proceed },
      return: { GET: comeBack },
      'dc-api': { POST: fromBrowser },
      leave: { POST: (context) => context.finish({ passed: false, reason: 'cancelled' }) },
    },
  };
}
