import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Translate } from '../i18n/catalogue.js';
import type { Language } from '../i18n/languages.js';
import type { CspDirectives } from '../http/security-headers.js';
import type { Location } from '../geo/location.js';
import type { ChallengeServices } from './services.js';
import type { ChallengeName, WebsiteChallenge } from './catalogue.js';
import type { SettingsSection } from '../config/settings.js';

// The names and their defaults are the catalogue's (catalogue.ts); the contract below is written in its terms.
export { CHALLENGE_NAMES, WEBSITE_CHALLENGES, type ChallengeName, type WebsiteChallenge } from './catalogue.js';

export const ASSURANCE_LEVELS = ['STANDARD', 'ENHANCED', 'STRICT'] as const;
export type AssuranceLevel = (typeof ASSURANCE_LEVELS)[number];

export type Environment = 'LIVE' | 'TEST';

/** What a challenge knows about the authorization it runs in. */
export interface ChallengeAttempt {
  /** the oidc-provider interaction uid */
  uid: string;
  environment: Environment;
  language: Language;
  /** the age the visitor must prove (18 unless the operator or the website's policy asks another there) */
  ageThreshold: number;
  /**
   * Years an estimation method's estimate must exceed ageThreshold by, as the policy in force asks (docs/policies.md);
   * 0 when it asks nothing. An estimate over the threshold but within this buffer ends with `estimate_too_close`.
   */
  estimationBuffer: number;
  website: { id: number; name: string; domain: string };
}

/**
 * What a wallet-based check may tell the visitor instead of its reason's general words: the wallet truthfully said
 * under age, its attestation could not be trusted, had expired, was revoked by its issuer, or the visitor declined in the wallet.
 */
export const OUTCOME_NOTICES = [
  'wallet_under_age',
  'wallet_untrusted',
  'wallet_expired',
  'wallet_revoked',
  'wallet_declined',
] as const;
export type OutcomeNotice = (typeof OUTCOME_NOTICES)[number];

export type ChallengeOutcome =
  /** `location`: where the evidence places the visitor (the sandbox's choice); absent means the geo resolver's answer. */
  | { passed: true; assuranceLevel: AssuranceLevel; location?: Location }
  /** `reason` decides whether the attempt counts as a failure; `notice`, when given, is what the visitor reads. */
  | {
      passed: false;
      reason: 'refused' | 'failed' | 'cancelled' | 'unavailable' | 'estimate_too_close';
      notice?: OutcomeNotice;
    };

/** The ending of a check that reached a verdict: a pass at `assuranceLevel`, or `reason`. */
export const verdict = (
  passed: boolean,
  assuranceLevel: AssuranceLevel,
  reason: 'refused' | 'failed' = 'refused',
): ChallengeOutcome => (passed ? { passed: true, assuranceLevel } : { passed: false, reason });

/** An unknown step, or a known step with the wrong method (Challenge.handle: unknown steps are 404). */

/** Per-request tools a challenge step gets from the interaction router. */
export interface StepContext {
  koa: Context;
  runtime: ChallengeServices;
  attempt: ChallengeAttempt;
  t: Translate;
  /** Challenge-private state for this interaction, kept between steps, sealed at rest, deleted when the challenge ends. */
  state: {
    get<T>(): Promise<T | undefined>;
    set<T>(value: T): Promise<void>;
  };
  /** Absolute path of one of this challenge's steps: /v1/oauth2/interaction/:uid/challenge/<name>/<step>. */
  stepUrl(step: string): string;
  /** Renders a template from views/ in the attempt's language, with `t`, `lang` and `csrf`. */
  render(template: string, variables?: Record<string, unknown>, status?: number): void;
  /**
   * Ends the challenge and logs how (challenge, interaction, result: nothing else about the visitor). A pass records the verification (its method is this challenge's name) and continues the
   * OAuth2 flow; anything else deletes the state and brings the visitor back to the choice of challenges with a message.
   */
  finish(outcome: ChallengeOutcome): Promise<void>;
}

export type StepMethod = 'GET' | 'POST';
export type StepHandler = (context: StepContext) => Promise<void> | void;
export type ChallengeSteps = Readonly<Record<string, Readonly<Partial<Record<StepMethod, StepHandler>>>>>;

/** One age check. One module per challenge under lib/verification/challenges/, listed in the registry. */
export interface Challenge {
  name: ChallengeName;
  /** part of a website's default challenge list */
  free: boolean;
  /** level recorded on a pass unless the outcome says otherwise */
  assuranceLevel: AssuranceLevel;
  /** the third party that answers it, for the start-up log (absent for built-in challenges) */
  vendor?: string;
  /**
   * Its steps, declared: step name → HTTP method → handler; the first step is "start" (GET). The step router answers
   * an unknown step (404) and a method the step does not take (405 with Allow) itself; a GET step also answers HEAD.
   * A urlencoded POST arrives parsed in koa.request.body with its `_csrf` already checked; a multipart/form-data POST
   * (a file) arrives unread, and the challenge must check `_csrf` itself (checkCsrfToken) once it has read the fields.
   */
  steps: ChallengeSteps;
  /** Sources this challenge's pages add to the CSP (e.g. a payment processor's script). */
  csp?: Partial<CspDirectives>;
  /** Endpoints of its own outside the interaction pages (absolute paths, e.g. a wallet's response URI), mounted at start-up. */
  routes?: Router;
  /** The state of what it follows at run time (e.g. a trusted list it refreshes), shown in /readyz's detail. */
  readiness?(): Record<string, unknown>;
  /**
   * Whether it can verify anyone now (e.g. its trusted list is current); while false it is not offered, exactly as
   * if it were not configured, and the age_provider_challenge_available metric says 0. Always, when absent.
   */
  available?(): boolean;
}

/** One challenge's entry in the registry: its settings, and how it is built from them at start-up. */
export interface ChallengeModule<S = unknown> {
  name: ChallengeName;
  /**
   * Its section of the configuration, read with every other section before anything starts (lib/app/sections.ts):
   * undefined while the operator has not configured it. A challenge without settings has none.
   */
  settings?: SettingsSection<S | undefined, unknown>;
  /** The challenge, or undefined when the operator has not configured it (then it never loads). */
  configure(
    runtime: ChallengeServices,
    settings: S | undefined,
  ): Challenge | undefined | Promise<Challenge | undefined>;
}

/** The configured challenges, built once at start-up (lib/verification/registry.ts): what every caller asks them. */
export interface ChallengeRegistry {
  /** Whether `name` can load in this environment: configured for LIVE; any name in TEST (the sandbox runs it). */
  offers(environment: Environment, name: ChallengeName): boolean;
  /** The challenge that runs `name`: the configured one for LIVE, the sandbox simulating it for TEST. */
  resolve(environment: Environment, name: ChallengeName): Challenge | undefined;
  /** Whether the operator configured `name` (it runs for LIVE). */
  configured(name: ChallengeName): boolean;
  /** The configured challenges' own endpoints (Challenge.routes), to mount beside the interaction pages. */
  routes: readonly Router[];
  /** What the configured challenges report for /readyz's detail, by challenge name (those that report anything). */
  readiness(): Record<string, unknown>;
  /** Whether each configured challenge can verify anyone now (Challenge.available), for the metrics. */
  availability(): Record<string, boolean>;
  /**
   * A new website's default `challenges` ("all free challenges", docs/challenges.md): a configured challenge is free as its
   * `<PREFIX>_FREE` setting says; one the operator has not configured keeps its default.
   */
  freeChallenges(): WebsiteChallenge[];
}
