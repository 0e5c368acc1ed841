import type { Context } from 'koa';
import { findReusableProof, type AgeProof } from '../../verification/proofs.js';
import { browserVisitor } from './browser-visitor.js';
import { seeOther } from '../../http/see-other.js';
import { handOverNew, locateVisitor } from './outcome.js';
import { landingOf, readyToVerify } from './page.js';
import type { InteractionServices, Visit } from './visit.js';

/** A proof reusable for this visit: same environment, proving at least the age required where the visitor is now. */
export async function reusableProof(services: InteractionServices, ctx: Context, visit: Visit, subject: string | undefined): Promise<AgeProof | undefined> {
  if (!subject) return undefined;
  const { ageThreshold } = await locateVisitor(services, ctx);
  return findReusableProof(services.runtime.db, services.runtime.clock, { subject, environment: visit.environment, ageThreshold });
}

/** What this browser proved earlier in its session, offered on both landing pages. */
export const browserProof = (services: InteractionServices, ctx: Context, visit: Visit): Promise<AgeProof | undefined> =>
  reusableProof(services, ctx, visit, browserVisitor(ctx, false));

/** Skips the challenge: a new verification marked `reused`, with the method and level of the proof, handed to the website. */
export async function reuseProof(services: InteractionServices, ctx: Context, visit: Visit, proof: AgeProof): Promise<void> {
  await handOverNew(services, ctx, visit, { method: proof.method, assuranceLevel: proof.assuranceLevel, reused: true });
}

/** POST reuse: the visitor takes up the offer of this browser's earlier result. */
export async function reuseBrowserProof(services: InteractionServices, ctx: Context, visit: Visit): Promise<void> {
  if (!readyToVerify(ctx, visit)) return;
  const proof = await browserProof(services, ctx, visit);
  if (!proof) return seeOther(ctx, `${landingOf(visit)}?notice=reuse_expired`);
  await reuseProof(services, ctx, visit, proof);
}
