import { LANGUAGE_CHOICES } from '../../i18n/languages.js';
import { WEBSITE_CHALLENGES } from '../../verification/challenge.js';
import { REGION_CODES } from '../../geo/region-codes.js';

// Field schemas shared by the request bodies. Each `description` doubles as the 400 message when the field is invalid.

export const NAME_MAX_LENGTH = 100;
export const REDIRECT_URIS_MAX = 20;
export const REDIRECT_URI_MAX_LENGTH = 2000;

export const nameField = {
  type: 'string',
  minLength: 1,
  maxLength: NAME_MAX_LENGTH,
  // No control characters or line breaks, and no bidirectional embedding, override or isolate (U+202A-U+202E,
  // U+2066-U+2069): a right-to-left override makes the visitor's prompt read the name backwards. Not blank once
  // trimmed. Written without overlapping repetitions, so it runs in linear time.
  pattern:
    '^\\p{Zs}*[^\\s\\p{Cc}\\p{Cs}\\p{Zl}\\p{Zp}\\u202A-\\u202E\\u2066-\\u2069][^\\p{Cc}\\p{Cs}\\p{Zl}\\p{Zp}\\u202A-\\u202E\\u2066-\\u2069]*$',
  description: `1 to ${NAME_MAX_LENGTH} characters, not blank, without control characters or bidirectional controls (U+202A-U+202E, U+2066-U+2069); surrounding spaces are trimmed.`,
  examples: ['My Website'],
} as const;

export const domainField = {
  type: 'string',
  minLength: 1,
  maxLength: 253,
  format: 'website-domain',
  description:
    'A lower-case host name such as "example.com", without scheme, port or path; internationalised names in punycode ("xn--..."); or "localhost", for local development.',
  examples: ['example.com'],
} as const;

export const languageField = {
  type: 'string',
  enum: [...LANGUAGE_CHOICES],
  description: `One of ${LANGUAGE_CHOICES.join(', ')}. "auto" follows the visitor's browser language, falling back to en.`,
} as const;

export const challengesField = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { type: 'string', enum: [...WEBSITE_CHALLENGES], description: `One of ${WEBSITE_CHALLENGES.join(', ')}.` },
  description: `At least one, without repetition, of ${WEBSITE_CHALLENGES.join(', ')}.`,
} as const;

export const regionsField = {
  type: 'array',
  uniqueItems: true,
  items: {
    type: 'string',
    enum: REGION_CODES,
    description:
      'An ISO 3166-1 alpha-2 country code (e.g. "DE") or an ISO 3166-2 US subdivision (e.g. "US-TX"), in upper case.',
  },
  description:
    'Unique ISO 3166-1 alpha-2 country codes (e.g. "DE") or ISO 3166-2 US subdivisions (e.g. "US-TX"); an empty list means all regions.',
} as const;

export const redirectUrisField = {
  type: 'array',
  minItems: 1,
  maxItems: REDIRECT_URIS_MAX,
  uniqueItems: true,
  items: {
    type: 'string',
    maxLength: REDIRECT_URI_MAX_LENGTH,
    format: 'redirect-uri',
    description: `An absolute URL of at most ${REDIRECT_URI_MAX_LENGTH} characters: https (http only for localhost, 127.0.0.1 and [::1]), without fragment, user name or password.`,
  },
  description: `1 to ${REDIRECT_URIS_MAX} unique absolute URLs: https (http only for localhost, 127.0.0.1 and [::1]), without fragment, user name or password.`,
  examples: [['https://example.com/age-verified']],
} as const;

export const OAUTH2_STATUSES = ['ACTIVE', 'DISABLED'] as const;

export const statusField = {
  type: 'string',
  enum: [...OAUTH2_STATUSES],
  description: 'ACTIVE or DISABLED. With DISABLED, redirectUris sent in the same request are ignored.',
} as const;
