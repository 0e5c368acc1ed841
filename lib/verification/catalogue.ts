import type { AssuranceLevel } from './challenge.js';

/** What the service knows of a challenge by its spec name alone, before any operator setting. */
interface CatalogueEntry {
  /** a website may list it; otherwise only an authorization request names it */
  listable: boolean;
  /**
   * In a new website's default `challenges` ("all free challenges", docs/challenges.md: no paid vendor
   * contract per check) unless the operator's `<PREFIX>_FREE` says otherwise (ChallengeRegistry.freeChallenges).
   */
  freeByDefault: boolean;
  /** a request-only challenge offered even when the request names none, once the operator configured it */
  offeredByDefault: boolean;
  /** the level a pass records unless the operator's `<PREFIX>_ASSURANCE_LEVEL` says otherwise */
  defaultLevel: AssuranceLevel;
  /** how the service behind it names itself on our pages, in every language */
  display: string;
}

/**
 * The challenge catalogue: one entry per spec challenge name, in the order the spec lists them. Every list of
 * challenge names (schema enums, website defaults, availability, request parsing) derives from it; adding a challenge
 * starts here (docs/challenges.md "Adding a challenge").
 */
export const CATALOGUE = {
  selfie: { listable: true, freeByDefault: true, offeredByDefault: false, defaultLevel: 'ENHANCED', display: 'Selfie' },
  email_age: { listable: true, freeByDefault: true, offeredByDefault: false, defaultLevel: 'STANDARD', display: 'Email age' },
  credit_card: { listable: true, freeByDefault: false, offeredByDefault: false, defaultLevel: 'STANDARD', display: 'Credit card' },
  ticket: { listable: true, freeByDefault: true, offeredByDefault: false, defaultLevel: 'STRICT', display: 'Ticket' },
  // The double-anonymity providers are STRICT; the others say less about their evidence.
  anonymage: { listable: true, freeByDefault: false, offeredByDefault: false, defaultLevel: 'STRICT', display: 'Anonymage' },
  pleenk: { listable: true, freeByDefault: false, offeredByDefault: false, defaultLevel: 'STRICT', display: 'Pleenk' },
  paypal: { listable: false, freeByDefault: false, offeredByDefault: false, defaultLevel: 'STANDARD', display: 'PayPal' },
  agego: { listable: false, freeByDefault: false, offeredByDefault: false, defaultLevel: 'STANDARD', display: 'AgeGO' },
  agekey: { listable: false, freeByDefault: false, offeredByDefault: false, defaultLevel: 'STANDARD', display: 'AgeKey' },
  // Needs no vendor account: offered once the operator trusts an issuer.
  eu_av: { listable: false, freeByDefault: false, offeredByDefault: true, defaultLevel: 'ENHANCED', display: 'EU age verification' },
} as const satisfies Record<string, CatalogueEntry>;

export type ChallengeName = keyof typeof CATALOGUE;
/** The names a website record may list. */
export type WebsiteChallenge = { [Name in ChallengeName]: (typeof CATALOGUE)[Name]['listable'] extends true ? Name : never }[ChallengeName];

const names = Object.keys(CATALOGUE) as ChallengeName[];

/** Every challenge the authorization endpoints accept. */
export const CHALLENGE_NAMES: readonly ChallengeName[] = names;
export const WEBSITE_CHALLENGES = names.filter((name): name is WebsiteChallenge => CATALOGUE[name].listable);
/** Challenges a website record cannot list; they load only when an authorization request names them. */
export const REQUEST_ONLY_CHALLENGES: readonly ChallengeName[] = names.filter((name) => !CATALOGUE[name].listable);
export const OFFERED_BY_DEFAULT: readonly ChallengeName[] = names.filter((name) => CATALOGUE[name].offeredByDefault);

export const isFreeByDefault = (name: ChallengeName): boolean => CATALOGUE[name].freeByDefault;
export const defaultLevelOf = (name: ChallengeName): AssuranceLevel => CATALOGUE[name].defaultLevel;
export const displayNameOf = (name: ChallengeName): string => CATALOGUE[name].display;
