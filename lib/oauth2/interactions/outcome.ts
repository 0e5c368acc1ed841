import type { Knex } from 'knex';
import type { InteractionResults } from 'oidc-provider';
import type { Location } from '../../geo/location.js';
import { websiteRule } from '../../policy/resolve.js';
import type { EffectiveRule } from '../../policy/rule.js';
import type { AssuranceLevel } from '../../verification/challenge.js';
import { accountSubject, proofInsert, proofOf, proofRow } from '../../verification/proofs.js';
import { flowEndingInsert } from '../../verification/flow-endings.js';
import { verificationInsert, verificationRow, type NewVerification } from '../../verification/verifications.js';
import {
  endInteraction,
  InteractionAlreadyEnded,
  type EndingVerification,
  type InteractionEnd,
} from '../flow-storage.js';
import { newGrant } from '../grants.js';
import { browserVisitor, browserVisitorForNewProof } from './browser-visitor.js';
import { progressDeletion, recordPassedChallenge } from './progress.js';
import { VisitorError } from '../../http/visitor-errors.js';
import { seeOther } from '../../http/see-other.js';
import type { Visit } from './visit.js';
import type { FlowEvent } from '../../statistics/tally.js';
import type { FlowEnding } from '../../http/metrics.js';
import type { Verification } from '../../verification/verifications.js';

/**
 * Counts a flow event for the website's statistics, in memory (no statement): its start, the prompt accepted, a check
 * begun (each once per interaction; the start for the metrics too), a check's refusal (naming the challenge), its return to the website with a
 * verification, or its end without a result.
 */
export function countFlow(visit: Visit, event: FlowEvent, challenge?: string): void {
  const { tally, clock, flows } = visit.services.runtime;
  const counted = tally.count(event, visit.uid, clock.now(), {
    websiteId: visit.client.website.id,
    environment: visit.environment,
    ...(challenge ? { challenge } : {}),
  });
  // The metrics count a start as the statistics do: once per interaction.
  if (event === 'started' && counted) flows.started(visit.environment);
}

/** How the website learns the flow ended, for the metrics (the environment is the visit's). */
type Ended = Omit<FlowEnding, 'environment'>;

/** A handed-over verification's ending: reused or passed, by the challenge it was made with. */
const endingWith = (verification: { challenge: string; reused: boolean }): Ended => ({
  outcome: verification.reused ? 'reused' : 'passed',
  challenge: verification.challenge,
});

/** A browser session rarely outlives a day; the anonymous proof's cookie dies with the session anyway. */
const BROWSER_PROOF_MAX_SECONDS = 86400;

/** Where the visitor is (the challenge's evidence wins over the geo resolver), the rule in force there and the age it asks. */
export async function locateVisitor(
  visit: Visit,
  evidence?: Location,
): Promise<{ location: Location; ageThreshold: number; rule: EffectiveRule }> {
  const { runtime } = visit.services;
  const location = evidence ?? (await runtime.geo.locate(visit.ctx));
  const rule = evidence ? websiteRule(runtime, visit.client.website, location) : visit.rule;
  return { location, ageThreshold: rule.ageThreshold, rule };
}

interface Evidence {
  /** the challenge passed */
  challenge: string;
  assuranceLevel: AssuranceLevel;
  location?: Location;
}

/** The verification this authorization would record from `evidence`, where the visitor is. */
async function describeVerification(visit: Visit, evidence: Evidence & { reused: boolean }): Promise<NewVerification> {
  const { runtime } = visit.services;
  const { location, ageThreshold, rule } = await locateVisitor(visit, evidence.location);
  return {
    websiteId: visit.client.website.id,
    environment: visit.environment,
    challenge: evidence.challenge,
    assuranceLevel: evidence.assuranceLevel,
    ageThreshold,
    country: location.country,
    countrySubdivision: location.subdivision,
    verified: true,
    reused: evidence.reused,
    verifiedAt: runtime.clock.now(),
    ttlSeconds: runtime.config.verificationTtl,
    policy: rule.origins,
    // The interaction was created when the website sent the visitor here (oidc-provider's iat, epoch seconds).
    startedAt: new Date(visit.interaction.iat * 1000),
    clientId: visit.client.clientId,
  };
}

/**
 * A challenge passed: the verification is recorded, this browser may reuse it for the session, and a signed-in
 * account keeps it. A signed-in visitor goes straight back to the website; others are offered to save the result.
 * Either way, one statement writes all of it.
 */
export async function completeChallenge(visit: Visit, evidence: Evidence): Promise<void> {
  const { services, ctx } = visit;
  const { db, config } = services.runtime;
  const verification = await describeVerification(visit, { ...evidence, reused: false });
  const browserProof = proofOf(
    verification,
    browserVisitorForNewProof(ctx),
    Math.min(config.proofReuseTtl, BROWSER_PROOF_MAX_SECONDS),
  );
  const { accountId } = visit.progress;
  if (accountId !== null) {
    const accountProof = proofOf(verification, accountSubject(accountId), config.proofReuseTtl);
    return handOverRecorded(visit, verification, [proofInsert(db, browserProof), proofInsert(db, accountProof)]);
  }
  // Recorded now, not yet linked to a grant: the visitor may still save it. The challenge's state goes with it.
  await recordPassedChallenge(db, visit.uid, visit.expiresAt, verificationRow(verification), proofRow(browserProof));
  seeOther(ctx, visit.paths.result);
}

/**
 * The id oidc-provider records for the visitor. It must stay the same within one browser (a different one makes the
 * provider ask to log out first), so a session the provider already has wins; else the signed-in account, else
 * the anonymous visitor of this browser. Never the verification uid.
 */
function providerAccountId(visit: Visit): string {
  const { ctx } = visit;
  return (
    visit.interaction.session?.accountId ??
    (visit.progress.accountId !== null ? accountSubject(visit.progress.accountId) : browserVisitor(ctx, true))
  );
}

/**
 * Ends the interaction with a recorded verification: a fresh grant linked to it, and the visitor goes back to the
 * website with a code.
 */
export const handOver = (visit: Visit, verification: Verification): Promise<void> =>
  grantAndReturn(visit, { link: verification.uid }, endingWith(verification));

/**
 * Ends the interaction with a verification recorded from `evidence` now, in the statement that writes its grant
 * (a sandbox shortcut, a reused proof): nothing to show the visitor in between.
 */
export async function handOverNew(visit: Visit, evidence: Evidence & { reused: boolean }): Promise<void> {
  await handOverRecorded(visit, await describeVerification(visit, evidence));
}

/** Ends the interaction with `verification` inserted with its grant, and `alongside` (e.g. its proofs) in the same statement. */
function handOverRecorded(visit: Visit, verification: NewVerification, alongside: Companions = []): Promise<void> {
  const { db } = visit.services.runtime;
  return grantAndReturn(
    visit,
    { insert: (grantId) => verificationInsert(db, verification, grantId) },
    endingWith(verification),
    alongside,
  );
}

/** Writes of our own that end with the interaction, in its statement. */
type Companions = Knex.QueryBuilder[];

async function grantAndReturn(
  visit: Visit,
  verification: EndingVerification,
  ended: Ended,
  alongside: Companions = [],
): Promise<void> {
  const { services, ctx } = visit;
  const accountId = providerAccountId(visit);
  const grant = { model: newGrant(services.provider, { accountId, clientId: visit.client.clientId }), verification };
  // Not remembered: the provider's session lasts as long as the browser session, like the anonymous visitor.
  seeOther(
    ctx,
    await finishInteraction(
      visit,
      (grantId) => ({ login: { accountId, remember: false }, consent: { grantId } }),
      ended,
      { grant, alongside },
    ),
  );
}

/** How a flow ended without a verification, as the verifications list shows it (lib/verification/flow-endings.ts). */
type Ending = { outcome: 'abandoned' } | { outcome: 'refused'; challenge: string };

/** The ending's insert, a companion of the statement that ends the interaction: no statement more. */
function endingOf(visit: Visit, ending: Ending | { outcome: 'unavailable' }): Knex.QueryBuilder {
  const { db, clock } = visit.services.runtime;
  return flowEndingInsert(db, visit.uid, {
    websiteId: visit.client.website.id,
    environment: visit.environment,
    clientId: visit.client.clientId,
    outcome: ending.outcome,
    challenge: 'challenge' in ending ? ending.challenge : null,
    startedAt: new Date(visit.interaction.iat * 1000),
    endedAt: clock.now(),
    policy: visit.rule.origins,
  });
}

/** Ends the interaction with an OAuth2 error the website receives with its state (e.g. access_denied), recording how it ended. */
export async function endWithError(visit: Visit, error: string, description: string, ending: Ending): Promise<void> {
  seeOther(
    visit.ctx,
    await finishInteraction(
      visit,
      () => ({ error, error_description: description }),
      { outcome: ending.outcome, challenge: 'challenge' in ending ? ending.challenge : null },
      { ending: endingOf(visit, ending) },
    ),
  );
}

/**
 * No challenge can run for this request: the visitor reads why in their language, and the link back gives the
 * website `error=temporarily_unavailable`.
 */
export async function failUnavailable(visit: Visit): Promise<never> {
  countFlow(visit, 'abandoned');
  const returnTo = await finishInteraction(
    visit,
    () => ({
      error: 'temporarily_unavailable',
      error_description: 'no age verification method is available for this request',
    }),
    { outcome: 'unavailable', challenge: null },
    { ending: endingOf(visit, { outcome: 'unavailable' }) },
  );
  throw new VisitorError('unavailable', 503, {
    returnTo,
    developer: {
      error: 'temporarily_unavailable',
      description: 'no age verification method is available for this request',
      parameter: 'challenges',
      value: visit.params.challenges ?? '',
      clientId: visit.client.clientId,
    },
  });
}

/**
 * Nothing of the interaction's progress is kept, and its result is saved for oidc-provider to resume the
 * authorization at the returned URL: what provider.interactionResult does (without merging an earlier submission),
 * on the interaction loadVisit already read. The grant the result names, its verification, the progress's deletion
 * and the interaction are written by one statement (flow-storage.ts endInteraction). The flow's end is counted once
 * that statement wrote it, so a repeated submit is not counted twice.
 */
async function finishInteraction(
  visit: Visit,
  result: (grantId: string | undefined) => InteractionResults,
  ended: Ended,
  writes: Pick<InteractionEnd, 'grant' | 'ending'> & { alongside?: Companions },
): Promise<string> {
  const { db, clock, flows } = visit.services.runtime;
  const { grant, ending, alongside = [] } = writes;
  try {
    const location = await endInteraction(db, clock, {
      interaction: visit.interaction,
      result,
      grant,
      ending,
      alongside: [progressDeletion(db, visit.uid), ...alongside],
    });
    // Ended by this statement, once whichever instance runs it: with a grant, the website gets a verification.
    if (grant) countFlow(visit, 'returned');
    flows.ended({ environment: visit.environment, ...ended });
    return location;
  } catch (error) {
    // A repeat of the form that ended it (a double click, a retrying browser): sent where the first submit was,
    // having written nothing (docs/decisions/reliability.md, "Repeated submits").
    if (error instanceof InteractionAlreadyEnded) return visit.interaction.returnTo;
    throw error;
  }
}
