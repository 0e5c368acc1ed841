import {
  CHALLENGE_NAMES,
  OFFERED_BY_DEFAULT,
  REQUEST_ONLY_CHALLENGES,
  WEBSITE_CHALLENGES,
  type ChallengeName,
} from './catalogue.js';

const isChallengeName = (value: string): value is ChallengeName =>
  (CHALLENGE_NAMES as readonly string[]).includes(value);

/** The request's comma-separated `challenges` (already validated by the authorization endpoint); undefined when absent or empty. */
export function parseRequestedChallenges(value: unknown): ChallengeName[] | undefined {
  if (typeof value !== 'string') return undefined;
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(isChallengeName);
  return names.length ? names : undefined;
}

/**
 * What the visitor may choose from: the website's challenges, narrowed (never widened) by the request, plus the
 * request-only ones the request names; then only those the operator runs (`offered`). Order: the request's, else the
 * website's followed by the OFFERED_BY_DEFAULT ones the operator configured (`configured`).
 */
export function availableChallenges(
  websiteChallenges: readonly string[],
  requested: readonly ChallengeName[] | undefined,
  offered: (name: ChallengeName) => boolean,
  configured: (name: ChallengeName) => boolean = () => false,
): ChallengeName[] {
  const listed = WEBSITE_CHALLENGES.filter((name) => websiteChallenges.includes(name)) as ChallengeName[];
  const allowed = requested
    ? requested.filter((name) => listed.includes(name) || REQUEST_ONLY_CHALLENGES.includes(name))
    : [
        ...websiteChallenges.filter((name): name is ChallengeName => listed.includes(name as ChallengeName)),
        ...OFFERED_BY_DEFAULT.filter(configured),
      ];
  return [...new Set(allowed)].filter(offered);
}
