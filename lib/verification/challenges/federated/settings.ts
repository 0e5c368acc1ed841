import { CATALOGUE, defaultLevelOf } from '../../catalogue.js';
import { ConfigError, type EnvSetting, type SettingsSection, type SettingsSpec } from '../../../config/settings.js';
import { ASSURANCE_LEVELS, type AssuranceLevel, type ChallengeName } from '../../challenge.js';

/** The challenges answered by a third-party OpenID Connect provider the visitor is sent to. */
export const FEDERATED_NAMES = [
  'anonymage',
  'pleenk',
  'paypal',
  'agego',
  'agekey',
] as const satisfies readonly ChallengeName[];
export type FederatedName = (typeof FEDERATED_NAMES)[number];

/** One provider's settings, read from `<NAME>_*` environment variables (see docs/challenges-federated.md). */
export interface FederatedSettings {
  name: FederatedName;
  /** the provider's Issuer Identifier: the `iss` its ID tokens carry */
  issuer: string;
  /** where its metadata is read from; absent when the endpoints are given explicitly */
  discoveryUrl?: string;
  /** explicit endpoints, for a provider that publishes no discovery document */
  endpoints?: { authorization: string; jwks: string; token?: string; userinfo?: string };
  clientId: string;
  clientSecret?: string;
  tokenAuthMethod: 'client_secret_basic' | 'client_secret_post' | 'none';
  /** space-separated; `{threshold}` is replaced by the attempt's age threshold */
  scopes: string;
  /** `code` (with PKCE) or `id_token` (the implicit flow AgeKey documents) */
  responseType: 'code' | 'id_token';
  /** how the answer comes back; `fragment` needs our small relay script */
  responseMode: 'query' | 'fragment';
  /** where the age claim is read */
  claimsSource: 'id_token' | 'userinfo';
  /** claim path (dots descend into objects); `{threshold}` is replaced by the attempt's age threshold */
  ageClaim: string;
  levelClaim?: string;
  /** provider level value → our level */
  levelMap: Record<string, AssuranceLevel>;
  /** recorded on a pass unless the level claim says otherwise */
  assuranceLevel: AssuranceLevel;
  /** part of a website's default challenge list (only anonymage and pleenk can be) */
  free: boolean;
  /** extra authorization request parameters; `{threshold}` in a value is replaced */
  authorizationParameters: Record<string, string>;
  /** AgeKey only: filters merged into its `claims` request beside `age_thresholds` */
  ageKeyClaims?: Record<string, unknown>;
  /** the JWS algorithm of its ID tokens when its metadata does not list one (openid-client assumes RS256) */
  idTokenAlg?: string;
  /** seconds for each call to the provider */
  timeout: number;
}

interface Raw {
  ISSUER: string;
  DISCOVERY_URL?: string;
  AUTHORIZATION_ENDPOINT?: string;
  TOKEN_ENDPOINT?: string;
  JWKS_URI?: string;
  USERINFO_ENDPOINT?: string;
  CLIENT_ID: string;
  CLIENT_SECRET?: string;
  TOKEN_AUTH_METHOD?: FederatedSettings['tokenAuthMethod'];
  SCOPES?: string;
  RESPONSE_TYPE?: FederatedSettings['responseType'];
  RESPONSE_MODE?: FederatedSettings['responseMode'];
  CLAIMS_SOURCE?: FederatedSettings['claimsSource'];
  AGE_CLAIM?: string;
  LEVEL_CLAIM?: string;
  LEVEL_MAP?: Record<string, AssuranceLevel>;
  ASSURANCE_LEVEL?: AssuranceLevel;
  FREE?: boolean;
  AUTHORIZATION_PARAMS?: Record<string, string>;
  CLAIMS?: Record<string, unknown>;
  ID_TOKEN_ALG?: string;
  TIMEOUT?: number;
}

/** https, or http on a loopback host: a provider's endpoints. */
const ENDPOINT = {
  schema: {
    type: 'string',
    pattern: '^(https://[^/?#\\s]+|http://(localhost|127\\.0\\.0\\.1|\\[::1\\])(:[0-9]+)?)(/[^?#\\s]*)?(\\?[^#\\s]*)?$',
  },
  expected: 'must be an https URL (http only on a loopback host)',
  optional: true,
};
const TEXT = { type: 'string', minLength: 1, maxLength: 2000 } as const;
const CLAIM_PATH = { type: 'string', pattern: '^[^\\s]{1,200}$' } as const;

/** Each variable after the `<NAME>_` prefix; ISSUER and CLIENT_ID are required, the rest have defaults in settingsOf. */
const FIELDS: { [K in keyof Raw]-?: Omit<EnvSetting, 'env'> } = {
  ISSUER: { ...ENDPOINT, optional: false },
  DISCOVERY_URL: ENDPOINT,
  AUTHORIZATION_ENDPOINT: ENDPOINT,
  TOKEN_ENDPOINT: ENDPOINT,
  JWKS_URI: ENDPOINT,
  USERINFO_ENDPOINT: ENDPOINT,
  CLIENT_ID: { schema: TEXT },
  CLIENT_SECRET: { schema: TEXT, optional: true },
  TOKEN_AUTH_METHOD: {
    schema: { type: 'string', enum: ['client_secret_basic', 'client_secret_post', 'none'] },
    optional: true,
  },
  SCOPES: { schema: { type: 'string', pattern: '(^|\\s)openid(\\s|$)', maxLength: 1000 }, optional: true },
  RESPONSE_TYPE: { schema: { type: 'string', enum: ['code', 'id_token'] }, optional: true },
  RESPONSE_MODE: { schema: { type: 'string', enum: ['query', 'fragment'] }, optional: true },
  CLAIMS_SOURCE: { schema: { type: 'string', enum: ['id_token', 'userinfo'] }, optional: true },
  AGE_CLAIM: { schema: CLAIM_PATH, optional: true },
  LEVEL_CLAIM: { schema: CLAIM_PATH, optional: true },
  LEVEL_MAP: {
    schema: { type: 'object', additionalProperties: { type: 'string', enum: [...ASSURANCE_LEVELS] } },
    json: true,
    optional: true,
  },
  ASSURANCE_LEVEL: { schema: { type: 'string', enum: [...ASSURANCE_LEVELS] }, optional: true },
  FREE: { schema: { type: 'boolean' }, optional: true },
  AUTHORIZATION_PARAMS: {
    schema: { type: 'object', additionalProperties: { type: 'string' } },
    json: true,
    optional: true,
  },
  CLAIMS: { schema: { type: 'object' }, json: true, optional: true },
  ID_TOKEN_ALG: {
    schema: {
      type: 'string',
      enum: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'],
    },
    optional: true,
  },
  TIMEOUT: { schema: { type: 'integer', minimum: 1, maximum: 60 }, optional: true },
};

/** Explicit endpoints come as a set; a level claim needs its map. */
const RELATIONS = {
  dependencies: {
    AUTHORIZATION_ENDPOINT: ['JWKS_URI'],
    JWKS_URI: ['AUTHORIZATION_ENDPOINT'],
    TOKEN_ENDPOINT: ['AUTHORIZATION_ENDPOINT'],
    USERINFO_ENDPOINT: ['AUTHORIZATION_ENDPOINT'],
    LEVEL_CLAIM: ['LEVEL_MAP'],
    LEVEL_MAP: ['LEVEL_CLAIM'],
  },
};

const envName = (name: FederatedName, suffix: string): string => `${name.toUpperCase()}_${suffix}`;

const specOf = (name: FederatedName): SettingsSpec<Raw> =>
  Object.fromEntries(
    Object.entries(FIELDS).map(([suffix, field]) => [suffix, { env: envName(name, suffix), ...field }]),
  ) as SettingsSpec<Raw>;

function fail(name: FederatedName, suffix: string, message: string): never {
  throw new ConfigError(`${envName(name, suffix)} ${message}`);
}

function settingsOf(name: FederatedName, raw: Raw): FederatedSettings {
  const agekey = name === 'agekey';
  if (raw.DISCOVERY_URL && raw.AUTHORIZATION_ENDPOINT)
    fail(name, 'DISCOVERY_URL', `cannot be combined with ${envName(name, 'AUTHORIZATION_ENDPOINT')}`);
  if (raw.FREE !== undefined && !CATALOGUE[name].listable)
    fail(name, 'FREE', 'is not accepted: this challenge is only loaded when a request names it');
  if (raw.CLAIMS !== undefined && !agekey) fail(name, 'CLAIMS', 'is only read for agekey');
  const responseType = raw.RESPONSE_TYPE ?? (agekey ? 'id_token' : 'code');
  const claimsSource = raw.CLAIMS_SOURCE ?? 'id_token';
  if (responseType === 'id_token' && claimsSource === 'userinfo')
    fail(name, 'CLAIMS_SOURCE', 'must be id_token when the response type is id_token (no access token is issued)');
  if (responseType === 'code' && raw.AUTHORIZATION_ENDPOINT && !raw.TOKEN_ENDPOINT)
    fail(name, 'TOKEN_ENDPOINT', 'is required with explicit endpoints and the code response type');
  if (claimsSource === 'userinfo' && raw.AUTHORIZATION_ENDPOINT && !raw.USERINFO_ENDPOINT)
    fail(name, 'USERINFO_ENDPOINT', 'is required with explicit endpoints when claims come from userinfo');
  // AgeKey documents its answer as age_thresholds: {"<age>": true|false} in the ID token.
  const ageClaim =
    raw.AGE_CLAIM ??
    (agekey ? 'age_thresholds.{threshold}' : fail(name, 'AGE_CLAIM', 'is required: the claim carrying the age answer'));
  const tokenAuthMethod = raw.TOKEN_AUTH_METHOD ?? (raw.CLIENT_SECRET ? 'client_secret_basic' : 'none');
  if (tokenAuthMethod !== 'none' && !raw.CLIENT_SECRET)
    fail(name, 'CLIENT_SECRET', `is required with ${envName(name, 'TOKEN_AUTH_METHOD')}=${tokenAuthMethod}`);
  return {
    name,
    issuer: raw.ISSUER,
    ...(raw.AUTHORIZATION_ENDPOINT
      ? {
          endpoints: {
            authorization: raw.AUTHORIZATION_ENDPOINT,
            jwks: raw.JWKS_URI!,
            ...(raw.TOKEN_ENDPOINT ? { token: raw.TOKEN_ENDPOINT } : {}),
            ...(raw.USERINFO_ENDPOINT ? { userinfo: raw.USERINFO_ENDPOINT } : {}),
          },
        }
      : { discoveryUrl: raw.DISCOVERY_URL ?? `${raw.ISSUER.replace(/\/$/, '')}/.well-known/openid-configuration` }),
    clientId: raw.CLIENT_ID,
    ...(raw.CLIENT_SECRET ? { clientSecret: raw.CLIENT_SECRET } : {}),
    tokenAuthMethod,
    scopes: raw.SCOPES ?? 'openid',
    responseType,
    responseMode: raw.RESPONSE_MODE ?? (responseType === 'id_token' ? 'fragment' : 'query'),
    claimsSource,
    ageClaim,
    ...(raw.LEVEL_CLAIM ? { levelClaim: raw.LEVEL_CLAIM } : {}),
    levelMap: raw.LEVEL_MAP ?? {},
    assuranceLevel: raw.ASSURANCE_LEVEL ?? defaultLevelOf(name),
    free: raw.FREE ?? false,
    authorizationParameters: raw.AUTHORIZATION_PARAMS ?? {},
    ...(agekey ? { ageKeyClaims: raw.CLAIMS ?? {} } : {}),
    ...(raw.ID_TOKEN_ALG ? { idTokenAlg: raw.ID_TOKEN_ALG } : {}),
    timeout: raw.TIMEOUT ?? 10,
  };
}

/** A provider's section (`<NAME>_*`): on as soon as any of its variables is set (docs/challenges-federated.md). */
export function federatedSettings(name: FederatedName): SettingsSection<FederatedSettings | undefined, Raw> {
  const spec = specOf(name);
  return {
    spec,
    relations: RELATIONS,
    enabledBy: Object.values<EnvSetting>(spec).map((setting) => setting.env),
    finish: (raw) => settingsOf(name, raw),
  };
}
