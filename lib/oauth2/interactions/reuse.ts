import { findReusableProof, type AgeProof } from '../../verification/proofs.js';
import { CHALLENGE_NAMES, isEstimation } from '../../verification/catalogue.js';
import { utcDay } from '../../policy/offer.js';
import { browserVisitor } from './browser-visitor.js';
import { seeOther } from '../../http/see-other.js';
import { countFlow, handOverNew, locateVisitor } from './outcome.js';
import { landingOf, readyToVerify } from './page.js';
import type { Visit } from './visit.js';

/** The estimation challenges (selfie, email age): a policy's estimation buffer applies to them. */
const ESTIMATIONS = CHALLENGE_NAMES.filter(isEstimation);

/**
 * A proof reusable for this visit: same environment, proving at least the age required where the visitor is now, and
 * meeting the policy there exactly as a fresh check would (docs/policies.md): young enough, at its level, made by a
 * method it allows and not past that method's `challengesUntil`, and for an estimation, an age that covers the
 * estimation buffer too. A policy asking for a check at each access reuses nothing.
 */
export async function reusableProof(visit: Visit, subject: string | undefined): Promise<AgeProof | undefined> {
  const { services } = visit;
  if (!subject) return undefined;
  const { ageThreshold, rule } = await locateVisitor(visit);
  if (rule.reuseMaxAgeSeconds === 0) return undefined;
  return findReusableProof(services.runtime.db, services.runtime.clock, {
    subject,
    environment: visit.environment,
    ageThreshold,
    minimumLevel: rule.minimumAssuranceLevel,
    ...(rule.reuseMaxAgeSeconds !== null ? { maxAgeSeconds: rule.reuseMaxAgeSeconds } : {}),
    ...(rule.challenges ? { challenges: rule.challenges } : {}),
    retired: Object.entries(rule.challengesUntil)
      .filter(([, until]) => until < utcDay(services.runtime.clock.now()))
      .map(([name]) => name),
    estimation: { challenges: ESTIMATIONS, buffer: rule.estimationBuffer },
  });
}

/** What this browser proved earlier in its session, offered on both landing pages. */
export const browserProof = (visit: Visit): Promise<AgeProof | undefined> =>
  reusableProof(visit, browserVisitor(visit.ctx, false));

/** Skips the challenge: a new verification marked `reused`, with the method and level of the proof, handed to the website. */
export async function reuseProof(visit: Visit, proof: AgeProof): Promise<void> {
  // Taking up an earlier result is the check this flow chose (the funnel's step).
  countFlow(visit, 'chosen');
  await handOverNew(visit, { challenge: proof.challenge, assuranceLevel: proof.assuranceLevel, reused: true });
}

/** POST reuse: the visitor takes up the offer of this browser's earlier result. */
export async function reuseBrowserProof(visit: Visit): Promise<void> {
  const { ctx } = visit;
  if (!readyToVerify(visit)) return;
  const proof = await browserProof(visit);
  if (!proof) return seeOther(ctx, `${landingOf(visit)}?notice=reuse_expired`);
  await reuseProof(visit, proof);
}
