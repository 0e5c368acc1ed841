import { seeOther } from '../../http/see-other.js';
import { isEstimation } from '../../verification/catalogue.js';
import { failUnavailable } from './outcome.js';
import { challengeCards } from './challenge-cards.js';
import { noticeOf } from './notices.js';
import { readyToVerify, renderPage } from './page.js';
import { browserProof } from './reuse.js';
import type { Visit } from './visit.js';

/**
 * The checker landing: the challenges this visitor may take, this browser's earlier result to reuse, and a link to
 * sign in instead. With exactly one challenge and nothing else to say, the visitor goes straight to it; with none
 * and nothing to reuse, the website gets temporarily_unavailable. After an estimate within the policy's buffer only
 * the challenges that verify are offered (docs/policies.md).
 */
export async function showChoice(visit: Visit): Promise<void> {
  const { ctx } = visit;
  if (!readyToVerify(visit)) return;
  const proof = await browserProof(visit);
  const notice = noticeOf(ctx);
  const challenges =
    notice === 'estimate_too_close' ? visit.challenges.filter((name) => !isEstimation(name)) : visit.challenges;
  const [only, ...others] = challenges;
  if (!only && !proof) return failUnavailable(visit);
  if (only && !others.length && !proof && !notice) return seeOther(ctx, visit.paths.step(only, 'start'));
  renderPage(visit, 'interaction/choose.njk', {
    cards: challengeCards(visit, challenges),
    proof,
    notice,
  });
}
