import type { JSONSchemaType } from 'ajv';
import { compileSchema } from '../../../http/form.js';

/** A wallet's direct_post answer, read from its form fields: the vp_token as JSON text, or the wallet's error. */
export interface WalletAnswer {
  state: string;
  vpToken?: string;
  error?: string;
}

interface Form {
  state: string;
  /** JSON text; or, parsed from `vp_token[<credential id>]=<presentation>` fields, one string per credential id */
  vp_token?: string | Record<string, string>;
  error?: string;
}

const PRESENTATION = { type: 'string', minLength: 1, maxLength: 60000 } as const;

// A union of a string and a map is more than JSONSchemaType can spell; the schema below is the check.
const validateForm = compileSchema<Form>({
  type: 'object',
  required: ['state'],
  properties: {
    state: { type: 'string', minLength: 1, maxLength: 200 },
    vp_token: {
      oneOf: [
        PRESENTATION,
        // A key holds no bracket (a nested `vp_token[a][b]` is not a credential id); a repeated field parses as an array and fails.
        {
          type: 'object',
          minProperties: 1,
          maxProperties: 4,
          propertyNames: { pattern: '^[^\\[\\]]+$', maxLength: 100 },
          additionalProperties: PRESENTATION,
        },
      ],
    },
    error: { type: 'string', minLength: 1, maxLength: 200 },
  },
} as unknown as JSONSchemaType<Form>);

/**
 * The answer in the two shapes the EU's age-verification reference verifier reads, and no others: `vp_token` as the
 * JSON text of OpenID4VP 1.0, or `vp_token[<credential id>]=<presentation>` fields (the iOS app's form encoding),
 * which stand for `{"<credential id>": ["<presentation>"]}`. Exactly one of vp_token and error; undefined otherwise.
 */
export function readWalletAnswer(body: unknown): WalletAnswer | undefined {
  if (!validateForm(body) || (body.vp_token === undefined) === (body.error === undefined)) return undefined;
  const { state, vp_token: token, error } = body;
  if (error !== undefined) return { state, error };
  const vpToken =
    typeof token === 'string'
      ? token
      : JSON.stringify(
          Object.fromEntries(Object.entries(token ?? {}).map(([id, presentation]) => [id, [presentation]])),
        );
  return { state, vpToken };
}
