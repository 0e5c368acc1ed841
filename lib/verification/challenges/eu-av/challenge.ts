import { CSRF_FIELD, compileSchema, readForm } from '../../../http/form.js';
import { readProgress, swapChallengeState } from '../../../oauth2/interactions/progress.js';
import { safeEqual, sha256 } from '../../../security/hashing.js';
import { isFreeByDefault } from '../../catalogue.js';
import type { Challenge, ChallengeOutcome, StepContext } from '../../challenge.js';
import { answerLimits } from './limits.js';
import { ANNEX_C_PROTOCOL, annexCRequestData, newAnnexCRequest, openAnnexCResponse } from './annex-c.js';
import {
  answerCounts,
  AV_DOCTYPE,
  dcApiRequest,
  newPending,
  OPENID4VP_DC_API_PROTOCOL,
  readPending,
  walletRequestUrl,
  type PendingPresentation,
} from './request.js';
import { qrCodeSvg } from './qr.js';
import type { EuAvSettings } from './settings.js';
import { dcApiTranscript, taggedTranscript } from './transcript.js';
import { judgePresentation, judgeVpToken, verdictLog, type PresentationVerdict } from './verify.js';

interface BrowserAnswer {
  _csrf: string;
  /** the protocol the browser chose among the two we offered */
  protocol: typeof OPENID4VP_DC_API_PROTOCOL | typeof ANNEX_C_PROTOCOL;
  /** OpenID4VP: the vp_token as JSON text; Annex C: the base64url EncryptedResponse */
  data: string;
}

/** The Digital Credentials API's answer, posted by our page script with the form token. */
const validateBrowserAnswer = compileSchema<BrowserAnswer>({
  type: 'object',
  additionalProperties: false,
  required: ['_csrf', 'protocol', 'data'],
  properties: {
    ...CSRF_FIELD,
    protocol: { type: 'string', enum: [OPENID4VP_DC_API_PROTOCOL, ANNEX_C_PROTOCOL] },
    data: { type: 'string', minLength: 1, maxLength: 40000 },
  },
});

/** How the wallet's answer (written by the response endpoint) ends the challenge. */
const OUTCOMES: Record<NonNullable<PendingPresentation['answer']>, (settings: EuAvSettings) => ChallengeOutcome> = {
  over: (settings) => ({ passed: true, assuranceLevel: settings.assuranceLevel }),
  under: () => ({ passed: false, reason: 'refused', notice: 'wallet_under_age' }),
  untrusted: () => ({ passed: false, reason: 'failed', notice: 'wallet_untrusted' }),
  expired: () => ({ passed: false, reason: 'failed', notice: 'wallet_expired' }),
  revoked: () => ({ passed: false, reason: 'failed', notice: 'wallet_revoked' }),
  invalid: () => ({ passed: false, reason: 'failed' }),
  declined: () => ({ passed: false, reason: 'cancelled', notice: 'wallet_declined' }),
};

/**
 * What the page says while no answer counts yet: nothing arrived, the wallet's answers are refused for a while, or a
 * wallet on the phone passed and the check waits for the browser it sent the visitor back to.
 */
type Waiting = 'not_yet' | 'limited' | 'returning' | undefined;

/** Why no answer counts on this page yet. */
async function waitingFor(pending: PendingPresentation, limitReached: () => Promise<boolean>): Promise<Waiting> {
  if (pending.responseCodeHash) return 'returning';
  return (await limitReached()) ? 'limited' : 'not_yet';
}

/**
 * eu_av: the EU age-verification attestation (or the PID, an ISO mdoc either) presented by the visitor's wallet over
 * OpenID4VP 1.0. The page shows a QR code (a wallet on another device) and links (a wallet on this device), each its
 * own request; the wallet posts its answer to the response endpoint (response-route.ts). A same-device pass counts
 * when the wallet brings this browser back to `return` with the response code; an answer to the QR code is noticed
 * by polling `status` or on "continue".
 */
export function createEuAvChallenge(settings: EuAvSettings, issuer: string): Challenge {
  async function showRequest(context: StepContext, pending: PendingPresentation, waiting?: Waiting): Promise<void> {
    const { threshold, requests } = pending;
    const [qrScheme = 'av'] = settings.walletSchemes;
    context.render('challenges/eu-av.njk', {
      age: threshold,
      walletLinks: settings.walletSchemes.map((scheme) => ({
        scheme,
        href: walletRequestUrl(scheme, issuer, threshold, requests.same_device),
      })),
      qrSvg: await qrCodeSvg(walletRequestUrl(qrScheme, issuer, threshold, requests.cross_device)),
      statusUrl: context.stepUrl('status'),
      continueUrl: context.stepUrl('continue'),
      leaveUrl: context.stepUrl('leave'),
      dcApiUrl: context.stepUrl('dc-api'),
      // Both protocols in one call: the browser offers what the visitor's wallets answer, and the visitor picks.
      // org-iso-mdoc first: the EUDI Android wallet core reads only the first request and requires it.
      dcRequests: JSON.stringify([
        { protocol: ANNEX_C_PROTOCOL, data: annexCRequestData(pending.annexC, threshold) },
        { protocol: OPENID4VP_DC_API_PROTOCOL, data: dcApiRequest(pending) },
      ]),
      waiting,
    });
  }

  /** Fresh requests (nonces and states) each time the page is opened; an older QR code or link then answers nothing. */
  async function start(context: StepContext): Promise<void> {
    const pending = newPending(context.attempt.uid, context.attempt.ageThreshold, newAnnexCRequest());
    await context.state.set(pending);
    await showRequest(context, pending);
  }

  const limitReached = (context: StepContext, pending: PendingPresentation): Promise<boolean> =>
    answerLimits(context.runtime).exhausted(context.attempt.uid, pending);

  /** Whether an answer counts now, or the wallet's answers are refused for a while; for the page's script, nothing about the answer. */
  async function status(context: StepContext): Promise<void> {
    const pending = readPending(await context.state.get<unknown>());
    context.koa.set('Cache-Control', 'no-store');
    const answered = Boolean(pending && answerCounts(pending));
    context.koa.body = {
      answered,
      ...(pending && !answered && (await limitReached(context, pending)) ? { limited: true } : {}),
    };
  }

  async function proceed(context: StepContext): Promise<void> {
    const pending = readPending(await context.state.get<unknown>());
    if (!pending) return start(context);
    if (!answerCounts(pending) || !pending.answer)
      return showRequest(context, pending, await waitingFor(pending, () => limitReached(context, pending)));
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
    const pending =
      stored?.name === 'eu_av' ? readPending(JSON.parse(runtime.sealer.unseal(stored.sealedState))) : undefined;
    if (!stored || !pending?.responseCodeHash || pending.answer !== 'over') return proceed(context);
    if (typeof code !== 'string' || !safeEqual(sha256(code), pending.responseCodeHash)) {
      runtime.log.info('eu_av response code refused', { uid: attempt.uid });
      return showRequest(context, pending, 'returning');
    }
    const counted: PendingPresentation = { ...pending, responseCodeHash: undefined, counted: true };
    if (
      !(await swapChallengeState(
        runtime.db,
        attempt.uid,
        'eu_av',
        stored.sealedState,
        runtime.sealer.seal(JSON.stringify(counted)),
      ))
    ) {
      return showRequest(context, pending, 'not_yet');
    }
    return context.finish(OUTCOMES.over(settings));
  }

  /**
   * The answer the browser's Digital Credentials API returned to our page: the same checks, with the session
   * transcript bound to our origin instead of the response URI; under Annex C the DeviceResponse is first opened
   * with the page view's HPKE key. The challenge ends with it, so it counts once.
   */
  async function fromBrowser(context: StepContext): Promise<void> {
    const pending = readPending(await context.state.get<unknown>());
    if (!pending || pending.answer) return proceed(context);
    const form = readForm(context.koa, validateBrowserAnswer);
    const origin = new URL(issuer).origin;
    const expected = { threshold: pending.threshold, now: context.runtime.clock.now(), statuses: settings.statuses };
    let judged: PresentationVerdict;
    if (form?.protocol === ANNEX_C_PROTOCOL) {
      // The Annex C request asks for the AV attestation only (annex-c.ts).
      const opened = openAnnexCResponse(form.data, pending.annexC, origin);
      judged = opened
        ? await judgePresentation(opened.deviceResponse, settings.trustedIssuers.current(), {
            ...expected,
            transcript: taggedTranscript(opened.transcript),
            doctypes: [AV_DOCTYPE],
          })
        : { verdict: 'invalid', problem: "the encrypted response does not open with this request's key" };
    } else {
      judged = await judgeVpToken(form?.data ?? '', settings.trustedIssuers, {
        ...expected,
        transcript: dcApiTranscript({ origin, nonce: pending.dcApiNonce }),
      });
    }
    context.runtime.log.info('eu_av presentation received', {
      ...verdictLog(context.attempt.uid, 'dc_api', judged),
      protocol: form?.protocol,
    });
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
