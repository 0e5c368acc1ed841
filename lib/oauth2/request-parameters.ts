import { Ajv, type ValidateFunction } from 'ajv';
import { errors, type Client, type KoaContextWithOIDC } from 'oidc-provider';
import { ASSURANCE_LEVELS, CHALLENGE_NAMES } from '../verification/challenge.js';
import { testLocation } from '../geo/codes.js';
import { FLOWS, SCOPE } from './protocol.js';

type Validator = (ctx: KoaContextWithOIDC, value: string | undefined, client: Client) => Promise<void>;

const challengeName = `(?:${CHALLENGE_NAMES.join('|')})`;

/** Our authorization request parameters; the test_* ones drive the TEST sandbox. */
const SCHEMAS = {
  /** any language tag: one we do not serve (or mis-cased) falls back to negotiation (visit.ts), it never fails the request */
  language: { type: 'string', pattern: '^[A-Za-z0-9-]{1,35}$' },
  challenges: { type: 'string', pattern: `^${challengeName}(?:,${challengeName})*$` },
  /** set by the entry rewrite only (entry.ts), never by the client */
  flow: { type: 'string', enum: [...FLOWS] },
  test_outcome: { type: 'string', enum: ['pass', 'refuse'] },
  test_level: { type: 'string', enum: [...ASSURANCE_LEVELS] },
  test_country: { type: 'string', pattern: '^[A-Z]{2}$' },
  test_subdivision: { type: 'string', pattern: '^[A-Z]{2}-[A-Z0-9]{1,3}$' },
} as const;

export type RequestParameter = keyof typeof SCHEMAS;

/** The values these parameters can have once the authorization endpoint accepted them (an enum's members, else a string). */
export type RequestParameterValues = {
  [Name in RequestParameter]?: (typeof SCHEMAS)[Name] extends { enum: ReadonlyArray<infer Value> } ? Value : string;
};

const ajv = new Ajv({ strict: true });
const checks = Object.fromEntries(
  Object.entries(SCHEMAS).map(([name, schema]) => [name, ajv.compile(schema)]),
) as Record<RequestParameter, ValidateFunction>;

const isSandboxParameter = (name: string) => name.startsWith('test_');

/** Extra rules a value must meet beyond its schema. */
const CROSS_CHECKS: Partial<Record<RequestParameter, (value: string, ctx: KoaContextWithOIDC) => string | undefined>> =
  {
    challenges: (value) =>
      new Set(value.split(',')).size === value.split(',').length ? undefined : 'challenges must not repeat a name',
    test_country: (value) =>
      testLocation(value, undefined) === 'country'
        ? 'test_country must be an ISO 3166-1 alpha-2 country code'
        : undefined,
    test_subdivision: (value, ctx) => {
      const country = ctx.oidc.params?.['test_country'];
      const located = testLocation(typeof country === 'string' ? country : value.slice(0, 2), value);
      return typeof located === 'string'
        ? 'test_subdivision must be an ISO 3166-2 subdivision of test_country'
        : undefined;
    },
  };

function parameterValidator(name: RequestParameter): Validator {
  return async (ctx, value, client) => {
    if (value === undefined) return;
    if (!checks[name](value)) throw new errors.InvalidRequest(`invalid ${name} parameter`);
    const problem = CROSS_CHECKS[name]?.(value, ctx);
    if (problem) throw new errors.InvalidRequest(problem);
    if (isSandboxParameter(name) && client['environment'] !== 'TEST') {
      throw new errors.InvalidRequest(`${name} is accepted only from TEST clients`);
    }
  };
}

/**
 * Only `read`, nothing besides it (the provider would silently drop unknown scopes, so the request's own value is
 * checked). Runs after the provider resolved the client and the redirect_uri, so the error goes back to the website.
 */
const scopeValidator: Validator = async (ctx) => {
  const requested = String(ctx.query['scope'] ?? '')
    .split(' ')
    .filter(Boolean);
  if (requested.length === 0 || requested.some((scope) => scope !== SCOPE)) {
    throw new errors.InvalidScope(`only the ${SCOPE} scope is supported`, requested.join(' '));
  }
};

/**
 * Values the website chooses freely and gets back (state) or that are stored with the interaction for its hour
 * (nonce, login_hint): at most this many characters (docs/configuration.md, "Input limits"). Checked after the
 * client and redirect_uri, so the website receives invalid_request on its redirect_uri.
 */
export const FREE_TEXT_PARAMETER_MAX = 1024;
const FREE_TEXT_PARAMETERS = ['state', 'nonce', 'login_hint'] as const;

const lengthValidator =
  (name: string): Validator =>
  async (_ctx, value) => {
    if (typeof value === 'string' && value.length > FREE_TEXT_PARAMETER_MAX) {
      throw new errors.InvalidRequest(`${name} must be at most ${FREE_TEXT_PARAMETER_MAX} characters`);
    }
  };

/** oidc-provider's `extraParams`: each of our parameters with its validator, plus the rules on `scope` and free text. */
export function requestParameters(): Record<string, Validator> {
  const ours = Object.fromEntries(
    (Object.keys(SCHEMAS) as RequestParameter[]).map((name) => [name, parameterValidator(name)]),
  );
  const freeText = Object.fromEntries(FREE_TEXT_PARAMETERS.map((name) => [name, lengthValidator(name)]));
  return { ...ours, ...freeText, scope: scopeValidator };
}
