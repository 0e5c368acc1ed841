import type { Next } from 'koa';
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { OAuth2Services } from './services.js';
import { clientAdapter } from './clients.js';
import { recordExpiredFlows } from '../verification/flow-endings.js';
import { flowAdapter } from './flow-storage.js';
import type { OidcAdapterFactory } from '../store/oidc-payloads.js';
import { watchProviderFailures } from './failures.js';
import { providerCookies } from './cookies.js';
import { loadGrantOfThisInteraction, verificationPolicy } from './interaction-policy.js';
import { introspectionResponse } from './introspection-response.js';
import { authorizationServerMetadata } from './metadata.js';
import { OAUTH2_PATHS, SCOPE } from './protocol.js';
import { renderError } from './render-error.js';
import { requestParameters } from './request-parameters.js';
import { verificationClaims } from './token-claims.js';
import { tokenResponse } from './token-response.js';

/** Lifetimes in seconds. */
const LIFETIMES = {
  authorizationCode: 600,
  accessToken: 3600,
  interaction: 3600,
  session: 24 * 3600,
  /** a grant is saved when its interaction ends and must outlive the code and the token issued under it */
  grant: 3600 + 600 + 3600,
} as const;

/** Everything we do not use is off: no ID tokens, no userinfo, no logout, no dynamic clients. */
const FEATURES_OFF = [
  'devInteractions',
  'dPoP',
  'rpInitiatedLogout',
  'userinfo',
  'pushedAuthorizationRequests',
  'resourceIndicators',
  'registration',
  'registrationManagement',
  'clientCredentials',
  'deviceFlow',
  'backchannelLogout',
  'ciba',
  'mTLS',
  'claimsParameter',
  'encryption',
  'jwtIntrospection',
  'jwtResponseModes',
  'jwtUserinfo',
  'requestObjects',
  'richAuthorizationRequests',
  'webMessageResponseMode',
  'rpMetadataChoices',
  'attestClientAuth',
  'clientIdMetadataDocument',
  'externalSigningSupport',
  'openid4vci',
] as const;

function configuration(runtime: OAuth2Services, oidcAdapter: OidcAdapterFactory): Configuration {
  const { db, clock, log, config } = runtime;
  // The storage adapter keeps oidc-provider's models, the flow's steps run in its transactions; clients resolve in lib.
  const Stored = flowAdapter(
    oidcAdapter({
      db,
      clock,
      log,
      onClose: (task) => runtime.onClose(task),
      beforeSweep: (now) => recordExpiredFlows(db, now),
    }),
    db,
    clock,
  );
  const clients = clientAdapter(runtime);
  return {
    adapter: (model: string) => (model === 'Client' ? clients : new Stored(model)),
    jwks: config.jwks,
    cookies: providerCookies(config, runtime.cookieKeys),
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    extraClientMetadata: { properties: ['environment'] },
    responseTypes: ['code'],
    scopes: [SCOPE],
    pkce: { required: () => false },
    allowOmittingSingleRegisteredRedirectUri: false,
    expiresWithSession: () => false,
    extraParams: requestParameters(),
    extraTokenClaims: verificationClaims(db),
    loadExistingGrant: loadGrantOfThisInteraction,
    findAccount: (_ctx, accountId) => ({ accountId, claims: () => ({ sub: accountId }) }),
    interactions: {
      policy: verificationPolicy(),
      url: (_ctx, interaction) => OAUTH2_PATHS.interaction(interaction.uid),
    },
    renderError: renderError(runtime.log),
    routes: {
      authorization: OAUTH2_PATHS.authorization,
      token: OAUTH2_PATHS.token,
      introspection: OAUTH2_PATHS.introspection,
      revocation: OAUTH2_PATHS.revocation,
      jwks: OAUTH2_PATHS.jwks,
      end_session: '/v1/oauth2/session/end',
      userinfo: '/v1/oauth2/me',
    },
    ttl: {
      AuthorizationCode: LIFETIMES.authorizationCode,
      AccessToken: LIFETIMES.accessToken,
      Interaction: LIFETIMES.interaction,
      Session: LIFETIMES.session,
      Grant: LIFETIMES.grant,
    },
    features: {
      ...Object.fromEntries(FEATURES_OFF.map((feature) => [feature, { enabled: false }])),
      introspection: {
        enabled: true,
        // A client sees only its own tokens; anything else is {active:false}.
        allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
      },
      revocation: {
        enabled: true,
        // Another client's token is left alone, silently (RFC 7009 §2.2 answers 200 either way).
        allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
      },
    },
  };
}

/**
 * How we reshape the provider's answers, by the one path each answers (each also checks the route once answered).
 * The provider's router folds case and the method guard drops a trailing slash, so the lower-cased path finds it.
 */
type AnswerShape = (ctx: KoaContextWithOIDC, next: Next) => Promise<void>;
const ANSWER_SHAPES = new Map<string, AnswerShape>([
  [OAUTH2_PATHS.token.toLowerCase(), tokenResponse],
  [OAUTH2_PATHS.introspection.toLowerCase(), introspectionResponse],
  [OAUTH2_PATHS.metadata.toLowerCase(), authorizationServerMetadata],
]);

/**
 * The oidc-provider instance: authorization-code grant only, clients from our tables, every artifact in
 * oidc_payloads. Its own middleware (token response, introspection, metadata) is registered here, before anything
 * mounts it: one layer, which hands a request to the reshaping of its path only, so the authorization, the resume
 * and the other routes do not wait on three that never apply to them.
 */
export function createProvider(runtime: OAuth2Services, oidcAdapter: OidcAdapterFactory): Provider {
  const provider = new Provider(runtime.config.issuer, configuration(runtime, oidcAdapter));
  provider.use((ctx: KoaContextWithOIDC, next: Next) => {
    const shape = ANSWER_SHAPES.get(ctx.path.toLowerCase());
    return shape ? shape(ctx, next) : next();
  });
  watchProviderFailures(provider);
  return provider;
}
