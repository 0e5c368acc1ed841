/**
 * Every rate limit of the service, one row each (docs/configuration.md "Rate limits" is checked against this table).
 * Handlers ask for a limit by name (`runtime.rateLimits.limiter(name)`); the name is also the key prefix of its
 * counters. `shared` counters live where every instance sees them (PostgreSQL when the database is shared, memory on
 * the embedded database, which one process owns); `instance` counters live in each instance's memory, for generous
 * ceilings on hot paths where a shared store would add a database write to every request: each instance then allows
 * `points` on its own. With REDIS_URL every row is counted in Redis instead, whatever its scope (lib/http/shared-limits.ts).
 * A `setting` makes `points` configurable, in requests per minute (its window is then 60 s).
 */
export interface LimitRow {
  points: number;
  windowSeconds: number;
  scope: 'shared' | 'instance';
  /** the environment variable that overrides `points` (requests per minute) */
  setting?: string;
  /** why the limit exists */
  reason: string;
}

const MINUTE = 60;
const FIFTEEN_MINUTES = 15 * MINUTE;
const HOUR = 60 * MINUTE;

export const LIMITS = {
  // OAuth2
  'oauth2-authorization-ip': {
    points: 600,
    windowSeconds: MINUTE,
    scope: 'instance',
    reason: 'each authorization request stores an interaction for an hour',
  },
  'oauth2-back-channel-ip': {
    points: 20_000,
    windowSeconds: MINUTE,
    scope: 'instance',
    setting: 'OAUTH2_RATE_LIMIT_PER_IP',
    reason:
      "token, Resources, introspection and revocation: one website's server sends all its site's calls, so it stops hammering, not traffic",
  },
  // Surfaces a website's pages or servers call
  requirement: {
    points: 300,
    windowSeconds: MINUTE,
    scope: 'shared',
    setting: 'REQUIREMENT_RATE_LIMIT_PER_IP',
    reason: 'GET /v1/requirement and GET /v1/policies per visitor address',
  },
  checker: {
    points: 120,
    windowSeconds: MINUTE,
    scope: 'shared',
    setting: 'CHECKER_RATE_LIMIT_PER_IP',
    reason: "the checker script's check, start and callback per visitor address",
  },
  'external-ip': {
    points: 3000,
    windowSeconds: MINUTE,
    scope: 'shared',
    setting: 'EXTERNAL_API_RATE_LIMIT_PER_IP',
    reason: 'External API, per address, before authentication',
  },
  'external-token': {
    points: 1200,
    windowSeconds: MINUTE,
    scope: 'shared',
    setting: 'EXTERNAL_API_RATE_LIMIT_PER_TOKEN',
    reason: 'External API, per account once authenticated (all its API keys together)',
  },
  // Webmasters' platform
  'platform-register-email': {
    points: 5,
    windowSeconds: HOUR,
    scope: 'shared',
    reason: 'sign-up mails to one address',
  },
  'platform-register-ip': { points: 20, windowSeconds: HOUR, scope: 'shared', reason: 'sign-ups from one address' },
  'platform-invite-account': {
    points: 20,
    windowSeconds: HOUR,
    scope: 'shared',
    reason: 'invitation mails sent from one account (each to a mailbox that did not ask for it)',
  },
  // Forgotten passwords: each asks for a mail; the counts bound the mails to one mailbox, and a spent count leaves the
  // password, the sessions and the sign-in codes of the account as they were.
  'platform-reset-email': {
    points: 10,
    windowSeconds: HOUR,
    scope: 'shared',
    reason: 'password reset mails to one address',
  },
  // Wrong current passwords at a password change, per account: a session left open is no way to guess it. The owner
  // is never held: a fresh sign-in (or a reset link) changes the password without the current one.
  'platform-password-change': {
    points: 5,
    windowSeconds: FIFTEEN_MINUTES,
    scope: 'shared',
    reason: 'wrong current passwords at a password change, per account',
  },
  'platform-reset-ip': {
    points: 20,
    windowSeconds: HOUR,
    scope: 'shared',
    reason: 'password resets asked for from one address',
  },
  // Password guessing (lib/security/sign-in-guard.ts): only failures count; a known device passes the first three.
  'platform-signin-accountAndNetwork': {
    points: 10,
    windowSeconds: FIFTEEN_MINUTES,
    scope: 'shared',
    reason: 'failed webmaster sign-ins per account and network',
  },
  'platform-signin-network': {
    points: 50,
    windowSeconds: FIFTEEN_MINUTES,
    scope: 'shared',
    reason: 'failed webmaster sign-ins per network, across accounts',
  },
  'platform-signin-account': {
    points: 100,
    windowSeconds: HOUR,
    scope: 'shared',
    reason: 'failed webmaster sign-ins per account, across networks',
  },
  'platform-signin-device': {
    points: 10,
    windowSeconds: FIFTEEN_MINUTES,
    scope: 'shared',
    reason: 'failed webmaster sign-ins from a device that signed in before',
  },
  // One-time sign-in codes mailed to a webmaster (lib/security/sign-in-guard.ts): every request and entry counts.
  'platform-signin-code-accountAndNetwork': {
    points: 3,
    windowSeconds: FIFTEEN_MINUTES,
    scope: 'shared',
    reason: 'sign-in codes asked for per account and network',
  },
  'platform-signin-code-network': {
    points: 10,
    windowSeconds: FIFTEEN_MINUTES,
    scope: 'shared',
    reason: 'sign-in codes asked for from one network, across accounts',
  },
  'platform-signin-code-account': {
    points: 20,
    windowSeconds: HOUR,
    scope: 'shared',
    reason: 'sign-in code mails to one account, across networks (its mailbox)',
  },
  'platform-signin-code-entry-network': {
    points: 30,
    windowSeconds: FIFTEEN_MINUTES,
    scope: 'shared',
    reason: 'sign-in codes entered from one network (a code also dies at its fifth wrong entry)',
  },
  'visitor-sign-in-accountAndNetwork': {
    points: 10,
    windowSeconds: FIFTEEN_MINUTES,
    scope: 'shared',
    reason: 'failed visitor sign-ins per account and network',
  },
  'visitor-sign-in-network': {
    points: 50,
    windowSeconds: FIFTEEN_MINUTES,
    scope: 'shared',
    reason: 'failed visitor sign-ins per network, across accounts',
  },
  'visitor-sign-in-account': {
    points: 100,
    windowSeconds: HOUR,
    scope: 'shared',
    reason: 'failed visitor sign-ins per account, across networks',
  },
  'visitor-sign-in-device': {
    points: 10,
    windowSeconds: FIFTEEN_MINUTES,
    scope: 'shared',
    reason: 'failed visitor sign-ins from a device that signed in before',
  },
  // Visitors' pages
  'visitor-account-create-ip': {
    points: 10,
    windowSeconds: HOUR,
    scope: 'shared',
    reason: 'visitor accounts created from one address',
  },
  'visitor-username-taken-verification': {
    points: 5,
    windowSeconds: HOUR,
    scope: 'shared',
    reason: '"username taken" answers per verification: probing needs a new pass every few names',
  },
  'visitor-passkey-sign-in-ip': {
    points: 50,
    windowSeconds: FIFTEEN_MINUTES,
    scope: 'shared',
    reason: 'passkey sign-in ceremonies from one address',
  },
  'visitor-passkey-register-ip': {
    points: 10,
    windowSeconds: HOUR,
    scope: 'shared',
    reason: 'passkeys registered from one address',
  },
  'challenge-failure-interaction': {
    points: 10,
    windowSeconds: HOUR,
    scope: 'shared',
    reason: 'challenges refused or failed in one authorization',
  },
  'challenge-failure-ip': {
    points: 100,
    windowSeconds: HOUR,
    scope: 'shared',
    reason: 'challenges refused or failed from one address',
  },
  // Challenges' own attempts (lib/verification/challenges/attempts.ts): costly or guessable checks.
  'selfie-interaction': {
    points: 5,
    windowSeconds: HOUR,
    scope: 'shared',
    reason: 'selfie estimations (a paid call each) per authorization',
  },
  'selfie-ip': { points: 20, windowSeconds: HOUR, scope: 'shared', reason: 'selfie estimations per address' },
  'email-age-send-interaction': {
    points: 3,
    windowSeconds: HOUR,
    scope: 'shared',
    reason: 'confirmation mails per authorization',
  },
  'email-age-send-ip': { points: 10, windowSeconds: HOUR, scope: 'shared', reason: 'confirmation mails per address' },
  'email-age-code-interaction': {
    points: 10,
    windowSeconds: HOUR,
    scope: 'shared',
    reason: 'confirmation code guesses per authorization',
  },
  'email-age-code-ip': {
    points: 30,
    windowSeconds: HOUR,
    scope: 'shared',
    reason: 'confirmation code guesses per address',
  },
  'credit-card-interaction': {
    points: 10,
    windowSeconds: HOUR,
    scope: 'shared',
    reason: 'card checks per authorization',
  },
  'credit-card-ip': { points: 30, windowSeconds: HOUR, scope: 'shared', reason: 'card checks per address' },
  'ticket-guess-interaction': {
    points: 5,
    windowSeconds: 10 * MINUTE,
    scope: 'shared',
    reason: 'ticket code guesses per authorization',
  },
  'ticket-guess-ip': {
    points: 30,
    windowSeconds: 10 * MINUTE,
    scope: 'shared',
    reason: 'ticket code guesses per address',
  },
  'federated-callback-ip': {
    points: 120,
    windowSeconds: 10 * MINUTE,
    scope: 'shared',
    reason: "a provider's callback per address (a visitor comes back once or twice per check)",
  },
  // A wallet's answers are counted per request and per authorization; per address only with a ceiling generous enough
  // for carrier NAT, which puts thousands of phones behind one (a flood from one address, not its visitors, meets it).
  'eu-av-response-ip': {
    points: 200,
    windowSeconds: 10 * MINUTE,
    scope: 'shared',
    reason:
      'wallet answers per address, a ceiling for floods: a carrier NAT address serves many visitors, each sending one or two',
  },
  'eu-av-response-request': {
    points: 5,
    windowSeconds: 10 * MINUTE,
    scope: 'shared',
    reason:
      "a wallet's answers to one request (one page view's QR code or link): the first counts, the rest are retries",
  },
  'eu-av-response-interaction': {
    points: 30,
    windowSeconds: 10 * MINUTE,
    scope: 'shared',
    reason: "a wallet's answers per authorization, across the page's reloads",
  },
} as const satisfies Record<string, LimitRow>;

export type LimitName = keyof typeof LIMITS;
