import type { Context } from 'koa';
import { seeOther } from '../../http/see-other.js';
import { failUnavailable } from './outcome.js';
import { methodCards } from './method-cards.js';
import { noticeOf } from './notices.js';
import { readyToVerify, renderPage } from './page.js';
import { browserProof } from './reuse.js';
import type { InteractionServices, Visit } from './visit.js';

/**
 * The checker landing: the challenges this visitor may take, this browser's earlier result to reuse, and a link to
 * sign in instead. With exactly one challenge and nothing else to say, the visitor goes straight to it; with none
 * and nothing to reuse, the website gets temporarily_unavailable.
 */
export async function showChoice(services: InteractionServices, ctx: Context, visit: Visit): Promise<void> {
  if (!readyToVerify(ctx, visit)) return;
  const proof = await browserProof(services, ctx, visit);
  const notice = noticeOf(ctx);
  const [only, ...others] = visit.challenges;
  if (!only && !proof) return failUnavailable(services, ctx, visit);
  if (only && !others.length && !proof && !notice) return seeOther(ctx, visit.paths.step(only, 'start'));
  renderPage(ctx, visit, 'interaction/choose.njk', {
    methods: methodCards(visit),
    proof,
    notice,
  });
}
