import { Ajv, type JSONSchemaType } from 'ajv';
import { LANGUAGES } from '../i18n/languages.js';
import { CHALLENGE_NAMES } from '../verification/challenge.js';

/** Where the result goes: `popup` (default) and `tab` post it to the opener; `redirect` returns with it in the fragment. */
export const TARGETS = ['popup', 'tab', 'redirect'] as const;
export type Target = (typeof TARGETS)[number];

const challengeName = `(?:${CHALLENGE_NAMES.join('|')})`;

export interface RequirementQuery {
  key: string;
}

export interface StartQuery {
  key: string;
  /** the host page's origin, as the script read it (the browser enforces it as postMessage's target) */
  origin: string;
  target: Target;
  /** target=redirect: the page to come back to, on `origin` */
  return_to?: string;
  language?: string;
  challenges?: string;
}

export interface CallbackQuery {
  state: string;
  code?: string;
  error?: string;
}

// Extra parameters are ignored; a repeated one arrives as an array and fails its string type.
const requirementShape: JSONSchemaType<RequirementQuery> = {
  type: 'object',
  required: ['key'],
  properties: { key: { type: 'string', minLength: 1, maxLength: 250 } },
};

const startShape: JSONSchemaType<StartQuery> = {
  type: 'object',
  required: ['key', 'origin', 'target'],
  properties: {
    key: { type: 'string', minLength: 1, maxLength: 250 },
    origin: { type: 'string', minLength: 1, maxLength: 300 },
    target: { type: 'string', enum: [...TARGETS] },
    return_to: { type: 'string', nullable: true, minLength: 1, maxLength: 2000 },
    language: { type: 'string', nullable: true, enum: [...LANGUAGES] },
    challenges: { type: 'string', nullable: true, maxLength: 300, pattern: `^${challengeName}(?:,${challengeName})*$` },
  },
};

const callbackShape: JSONSchemaType<CallbackQuery> = {
  type: 'object',
  required: ['state'],
  properties: {
    state: { type: 'string', minLength: 1, maxLength: 4000 },
    code: { type: 'string', nullable: true, minLength: 1, maxLength: 500 },
    error: { type: 'string', nullable: true, maxLength: 100 },
  },
};

const ajv = new Ajv({ allErrors: false });
export const validRequirementQuery = ajv.compile(requirementShape);
export const validStartQuery = ajv.compile(startShape);
export const validCallbackQuery = ajv.compile(callbackShape);
