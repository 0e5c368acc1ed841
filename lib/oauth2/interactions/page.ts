import { render } from '../../http/render.js';
import { seeOther } from '../../http/see-other.js';
import type { Visit } from './visit.js';
import { isCheckerClientId } from '../../checker/client.js';
import { openState } from '../../checker/state.js';

/**
 * The host the visitor goes back to. For a website's OAuth2 client: the registered redirect URI oidc-provider
 * matched, not the domain the webmaster typed. For the checker script's client, whose redirect URI is this service's
 * own callback: the page that opened the window, as sealed in the state when it started (lib/checker/start.ts).
 */
function returnHostOf(visit: Visit): string {
  if (isCheckerClientId(visit.params.client_id)) {
    const { state: sealed } = visit.interaction.params as { state?: unknown };
    const state = typeof sealed === 'string' ? openState(visit.services.runtime, sealed) : undefined;
    return state ? new URL(state.origin).host : visit.client.website.domain;
  }
  return new URL(visit.params.redirect_uri).host;
}

/** The three steps the visitor's pages show: the request (prompt), the check (choice, challenges, sign-in), the result. */
export type VisitStep = 'request' | 'check' | 'result';

/**
 * Renders an interaction page in the visit's language with what every page shows: who is asking (the website, the
 * host the visitor returns to, whether its domain is verified), the step, the sandbox banner, sign-in state, the paths.
 * A template may set its own `step`; challenge pages are in the check step.
 */
export function renderPage(
  visit: Visit,
  template: string,
  variables: Record<string, unknown> = {},
  status = 200,
): void {
  render(
    visit.ctx,
    template,
    visit.language,
    {
      website: visit.client.website,
      returnHost: returnHostOf(visit),
      step: 'check' satisfies VisitStep,
      sandbox: visit.environment === 'TEST',
      signedIn: visit.progress.accountId !== null,
      hasOtherChallenges: visit.challenges.length > 1,
      paths: visit.paths,
      passkeys: visit.services.passkeys,
      ...variables,
    },
    status,
  );
}

/** Where an accepted authorization starts: the challenge choice (checker) or visitor sign-in (login). */
export const landingOf = (visit: Visit): string => (visit.flow === 'login' ? visit.paths.signIn : visit.paths.choose);

/**
 * Pages between the prompt and the hand-over: without consent the visitor goes back to the prompt; with a
 * verification already recorded, on to its result page. Returns false when it redirected.
 */
export function readyToVerify(visit: Visit): boolean {
  if (!visit.progress.acceptedAt) {
    seeOther(visit.ctx, visit.paths.root);
    return false;
  }
  if (visit.progress.verificationUid) {
    seeOther(visit.ctx, visit.paths.result);
    return false;
  }
  return true;
}
