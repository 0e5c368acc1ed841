import type { ChallengeServices } from './services.js';
import { isFreeByDefault, WEBSITE_CHALLENGES, type ChallengeName } from './catalogue.js';
import type { Challenge, ChallengeModule, ChallengeRegistry } from './challenge.js';
import { sandboxChallenge } from './challenges/sandbox.js';
import { creditCardModule } from './challenges/credit-card/challenge.js';
import { emailAgeModule } from './challenges/email-age/challenge.js';
import { euAvModule } from './challenges/eu-av/index.js';
import { federatedModules } from './challenges/federated/index.js';
import { selfieModule } from './challenges/selfie/challenge.js';
import { ticketModule } from './challenges/ticket/challenge.js';

/**
 * Every challenge this service knows, one line each (docs/challenges.md "Adding a challenge"). Nothing else changes
 * when one is added: the choice page, the step router (/v1/oauth2/interaction/:uid/challenge/<name>/<step>, from its
 * `steps` table), its own routes, TEST sandboxing and the free defaults come with the registry.
 */
export const CHALLENGE_MODULES: readonly ChallengeModule[] = [
  ticketModule,
  selfieModule,
  emailAgeModule,
  creditCardModule,
  ...federatedModules,
  euAvModule,
];

/** A configured challenge is offered while it says it can verify (a trusted list gone stale stops eu_av). */
const isAvailable = (challenge: Challenge | undefined): boolean =>
  Boolean(challenge) && (challenge!.available?.() ?? true);

/** Builds the configured challenges once, at start-up. */
export async function buildRegistry(
  runtime: ChallengeServices,
  modules: readonly ChallengeModule[] = CHALLENGE_MODULES,
): Promise<ChallengeRegistry> {
  const live = new Map<ChallengeName, Challenge>();
  for (const module of modules) {
    if (live.has(module.name)) throw new Error(`challenge ${module.name} is registered twice`);
    // Its settings were read and checked with the rest of the configuration (lib/app/sections.ts).
    const challenge = await module.configure(runtime, runtime.config.challenges.get(module.name));
    if (!challenge) continue;
    live.set(module.name, challenge);
    // What this instance offers, for the operator (never a credential).
    const { assuranceLevel, free, vendor } = challenge;
    runtime.log.info('challenge active', {
      challenge: module.name,
      assuranceLevel,
      free,
      ...(vendor ? { vendor } : {}),
    });
  }
  const sandboxes = new Map<ChallengeName, Challenge>();
  const sandboxFor = (name: ChallengeName): Challenge => {
    let sandbox = sandboxes.get(name);
    if (!sandbox) {
      // The sandbox proposes the level the real challenge would record, so a test run looks like a live one.
      sandbox = sandboxChallenge(name, live.get(name)?.assuranceLevel ?? 'STANDARD');
      sandboxes.set(name, sandbox);
    }
    return sandbox;
  };
  return {
    offers: (environment, name) => environment === 'TEST' || isAvailable(live.get(name)),
    resolve: (environment, name) => (environment === 'TEST' ? sandboxFor(name) : live.get(name)),
    configured: (name) => live.has(name),
    routes: [...live.values()].flatMap((challenge) => (challenge.routes ? [challenge.routes] : [])),
    readiness: () =>
      Object.fromEntries(
        [...live].flatMap(([name, challenge]) => (challenge.readiness ? [[name, challenge.readiness()]] : [])),
      ),
    availability: () => Object.fromEntries([...live].map(([name, challenge]) => [name, isAvailable(challenge)])),
    freeChallenges: () => WEBSITE_CHALLENGES.filter((name) => live.get(name)?.free ?? isFreeByDefault(name)),
  };
}
