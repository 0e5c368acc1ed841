import { CSRF_FIELD, compileSchema, readForm } from '../../../http/form.js';
import { isFreeByDefault } from '../../catalogue.js';
import type { Challenge, ChallengeOutcome, StepContext } from '../../challenge.js';
import { dcApiRequest, newPending, walletRequestUrl, type PendingPresentation } from './request.js';
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
  under: () => ({ passed: false, reason: 'refused', notice: 'wallet_under_age' }),
  untrusted: () => ({ passed: false, reason: 'failed', notice: 'wallet_untrusted' }),
  expired: () => ({ passed: false, reason: 'failed', notice: 'wallet_expired' }),
  invalid: () => ({ passed: false, reason: 'failed' }),
  declined: () => ({ passed: false, reason: 'cancelled', notice: 'wallet_declined' }),
};

/**
 * eu_av: the EU age-verification attestation (an ISO mdoc) presented by the visitor's wallet over OpenID4VP 1.0.
 * The page shows the request as a QR code (another device) and a link (this device); the wallet posts its answer
 * to the response endpoint (response-route.ts), and this page notices it by polling `status` or on "continue".
 */
export function createEuAvChallenge(settings: EuAvSettings, issuer: string): Challenge {
  async function showRequest(context: StepContext, pending: PendingPresentation, waiting = false): Promise<void> {
    const walletUrl = walletRequestUrl(settings.walletScheme, issuer, pending);
    context.render('challenges/eu-av.njk', {
      age: pending.threshold,
      walletUrl,
      qrSvg: await qrCodeSvg(walletUrl),
      statusUrl: context.stepUrl('status'),
      continueUrl: context.stepUrl('continue'),
      leaveUrl: context.stepUrl('leave'),
      dcApiUrl: context.stepUrl('dc-api'),
      dcRequest: JSON.stringify(dcApiRequest(pending)),
      waiting,
    });
  }

  /** A fresh request (nonce and state) each time the page is opened; an older QR code then answers nothing. */
  async function start(context: StepContext): Promise<void> {
    const pending = newPending(context.runtime.sealer, context.attempt.uid, context.attempt.ageThreshold);
    await context.state.set(pending);
    await showRequest(context, pending);
  }

  /** Whether the wallet has answered, for the page's script; says nothing about the answer. */
  async function status(context: StepContext): Promise<void> {
    const pending = await context.state.get<PendingPresentation>();
    context.koa.set('Cache-Control', 'no-store');
    context.koa.body = { answered: Boolean(pending?.answer) };
  }

  async function proceed(context: StepContext): Promise<void> {
    const pending = await context.state.get<PendingPresentation>();
    if (!pending) return start(context);
    if (!pending.answer) return showRequest(context, pending, true);
    return context.finish(OUTCOMES[pending.answer](settings));
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
      transcript: dcApiTranscript({ origin: new URL(issuer).origin, nonce: pending.nonce }), threshold: pending.threshold, now: context.runtime.clock.now(),
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
      'dc-api': { POST: fromBrowser },
      leave: { POST: (context) => context.finish({ passed: false, reason: 'cancelled' }) },
    },
  };
}
