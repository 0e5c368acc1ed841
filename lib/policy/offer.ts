import { availableChallenges } from '../verification/availability.js';
import { offersDoubleAnonymity } from '../verification/catalogue.js';
import type { AssuranceLevel, ChallengeName, Environment } from '../verification/challenge.js';
import type { ChallengeRegistry } from '../verification/challenge.js';
import { levelRank, type EffectiveRule } from './rule.js';

/** What the rule needs to know of the challenges besides their catalogue facts. */
export interface OfferContext {
  /** the day in UTC, YYYY-MM-DD: a challenge allowed until an earlier day is not offered */
  today: string;
  /** the level a pass of `name` records, when it is fixed (LIVE); undefined when the visitor's run decides it (the sandbox) */
  levelOf(name: ChallengeName): AssuranceLevel | undefined;
}

/**
 * The challenges `rule` lets a visitor take out of `available` (docs/policies.md): only those it allows, not past
 * their date, able to reach its minimum level; a double-anonymity method first when the rule requires one, and
 * none at all when it requires one and none is available (the rule cannot be met, so no check may run).
 */
export function offeredChallenges(
  rule: EffectiveRule,
  available: readonly ChallengeName[],
  context: OfferContext,
): ChallengeName[] {
  const minimum = levelRank(rule.minimumAssuranceLevel);
  const offered = available.filter((name) => {
    if (rule.challenges && !rule.challenges.includes(name)) return false;
    const until = rule.challengesUntil[name];
    if (until !== undefined && until < context.today) return false;
    const level = context.levelOf(name);
    return level === undefined || levelRank(level) >= minimum;
  });
  if (!rule.requireDoubleAnonymity) return offered;
  const anonymous = offered.filter(offersDoubleAnonymity);
  return anonymous.length ? [...anonymous, ...offered.filter((name) => !offersDoubleAnonymity(name))] : [];
}

/**
 * The challenges a visitor of a website may take under `rule`: the website's (narrowed by the request's, if any, as
 * availableChallenges says), those the operator runs in this environment, then as the rule allows and orders them.
 */
export function challengesUnder(
  rule: EffectiveRule,
  registry: ChallengeRegistry,
  environment: Environment,
  websiteChallenges: readonly string[],
  requested: readonly ChallengeName[] | undefined,
  now: Date,
): ChallengeName[] {
  const available = availableChallenges(
    websiteChallenges,
    requested,
    (name) => registry.offers(environment, name),
    (name) => registry.configured(name),
  );
  return offeredChallenges(rule, available, {
    today: utcDay(now),
    // The sandbox lets the visitor pick any level; a live challenge records its own.
    levelOf: (name) => (environment === 'LIVE' ? registry.resolve(environment, name)?.assuranceLevel : undefined),
  });
}

/** Whether a pass at `level` completes a flow under `rule`. */
export const reachesLevel = (rule: EffectiveRule, level: AssuranceLevel): boolean =>
  levelRank(level) >= levelRank(rule.minimumAssuranceLevel);

/** The UTC day of `now`, as rules write their dates. */
export const utcDay = (now: Date): string => now.toISOString().slice(0, 10);
