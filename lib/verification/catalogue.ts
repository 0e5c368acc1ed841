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
  /**
   * It estimates an age rather than verifying one: a policy's estimation buffer applies to it, and regimes that want
   * verification rather than estimation leave it out (docs/policies.md).
   */
  estimation: boolean;
  /**
   * It qualifies as a "double anonymity" method (docs/policies.md): whoever vouches for the age never learns which
   * website asked, and the website never learns who the visitor is.
   */
  doubleAnonymity: boolean;
}

/**
 * The challenge catalogue: one entry per spec challenge name, in the order the spec lists them. Every list of
 * challenge names (schema enums, website defaults, availability, request parsing) derives from it; adding a challenge
 * starts here (docs/challenges.md "Adding a challenge").
 */
export const CATALOGUE = {
  selfie: {
    listable: true,
    freeByDefault: true,
    offeredByDefault: false,
    defaultLevel: 'ENHANCED',
    display: 'Selfie',
    estimation: true,
    doubleAnonymity: false,
  },
  email_age: {
    listable: true,
    freeByDefault: true,
    offeredByDefault: false,
    defaultLevel: 'STANDARD',
    display: 'Email age',
    estimation: true,
    doubleAnonymity: false,
  },
  credit_card: {
    listable: true,
    freeByDefault: false,
    offeredByDefault: false,
    defaultLevel: 'STANDARD',
    display: 'Credit card',
    estimation: false,
    doubleAnonymity: false,
  },
  ticket: {
    listable: true,
    freeByDefault: true,
    offeredByDefault: false,
    defaultLevel: 'STRICT',
    display: 'Ticket',
    estimation: false,
    doubleAnonymity: true,
  },
  // A ticket is bought face to face from a seller who checks the age and never learns where it is spent: double anonymity.
  // The double-anonymity providers are STRICT; the others say less about their evidence.
  anonymage: {
    listable: true,
    freeByDefault: false,
    offeredByDefault: false,
    defaultLevel: 'STRICT',
    display: 'Anonymage',
    estimation: false,
    doubleAnonymity: true,
  },
  pleenk: {
    listable: true,
    freeByDefault: false,
    offeredByDefault: false,
    defaultLevel: 'STRICT',
    display: 'Pleenk',
    estimation: false,
    doubleAnonymity: true,
  },
  paypal: {
    listable: false,
    freeByDefault: false,
    offeredByDefault: false,
    defaultLevel: 'STANDARD',
    display: 'PayPal',
    estimation: false,
    doubleAnonymity: false,
  },
  agego: {
    listable: false,
    freeByDefault: false,
    offeredByDefault: false,
    defaultLevel: 'STANDARD',
    display: 'AgeGO',
    estimation: false,
    doubleAnonymity: false,
  },
  agekey: {
    listable: false,
    freeByDefault: false,
    offeredByDefault: false,
    defaultLevel: 'STANDARD',
    display: 'AgeKey',
    estimation: false,
    doubleAnonymity: false,
  },
  // Needs no vendor account: offered once the operator trusts an issuer. The wallet discloses only age_over_NN and its
  // issuer never sees the presentation: double anonymity.
  eu_av: {
    listable: false,
    freeByDefault: false,
    offeredByDefault: true,
    defaultLevel: 'ENHANCED',
    display: 'EU age verification',
    estimation: false,
    doubleAnonymity: true,
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ChallengeName = keyof typeof CATALOGUE;
/** The names a website record may list. */
export type WebsiteChallenge = {
  [Name in ChallengeName]: (typeof CATALOGUE)[Name]['listable'] extends true ? Name : never;
}[ChallengeName];

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
export const isEstimation = (name: ChallengeName): boolean => CATALOGUE[name].estimation;
export const offersDoubleAnonymity = (name: ChallengeName): boolean => CATALOGUE[name].doubleAnonymity;
