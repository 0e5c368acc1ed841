import type { ClientMetadata } from 'oidc-provider';

export const NAMES = ['anonymage', 'pleenk', 'paypal', 'agego', 'agekey'] as const;
export type Name = (typeof NAMES)[number];

/** Operator settings for each provider, all played by the one upstream: each shows another way to configure one. */
export function operatorEnv(issuer: string): Record<string, string> {
  return {
    // ID token claim named after the threshold, with the provider's level mapped.
    ANONYMAGE_ISSUER: issuer,
    ANONYMAGE_CLIENT_ID: 'anonymage-client',
    ANONYMAGE_CLIENT_SECRET: 'anonymage-secret-0123456789',
    ANONYMAGE_SCOPES: 'openid age',
    ANONYMAGE_AGE_CLAIM: 'age_over_{threshold}',
    ANONYMAGE_LEVEL_CLAIM: 'assurance',
    ANONYMAGE_LEVEL_MAP: '{"high":"ENHANCED"}',
    // A birthdate from userinfo; the default level (STRICT).
    PLEENK_ISSUER: issuer,
    PLEENK_CLIENT_ID: 'pleenk-client',
    PLEENK_CLIENT_SECRET: 'pleenk-secret-0123456789',
    PLEENK_SCOPES: 'openid age',
    PLEENK_CLAIMS_SOURCE: 'userinfo',
    PLEENK_AGE_CLAIM: 'birthdate',
    // An explicit discovery URL and client_secret_post.
    PAYPAL_ISSUER: issuer,
    PAYPAL_DISCOVERY_URL: `${issuer}/.well-known/openid-configuration`,
    PAYPAL_CLIENT_ID: 'paypal-client',
    PAYPAL_CLIENT_SECRET: 'paypal-secret-0123456789',
    PAYPAL_TOKEN_AUTH_METHOD: 'client_secret_post',
    PAYPAL_SCOPES: 'openid age',
    PAYPAL_AGE_CLAIM: 'birthdate',
    // A boolean claim and an operator-set level.
    AGEGO_ISSUER: issuer,
    AGEGO_CLIENT_ID: 'agego-client',
    AGEGO_CLIENT_SECRET: 'agego-secret-0123456789',
    AGEGO_SCOPES: 'openid age',
    AGEGO_AGE_CLAIM: 'age_over_18',
    AGEGO_ASSURANCE_LEVEL: 'ENHANCED',
    // AgeKey as documented: implicit flow, explicit endpoints, public client, everything else by default.
    AGEKEY_ISSUER: issuer,
    AGEKEY_AUTHORIZATION_ENDPOINT: `${issuer}/auth`,
    AGEKEY_JWKS_URI: `${issuer}/jwks`,
    AGEKEY_CLIENT_ID: 'agekey-client',
  };
}

export function upstreamClients(appUrl: string): ClientMetadata[] {
  const callback = (name: Name) => [`${appUrl}/v1/oauth2/federated/${name}/callback`];
  return [
    ...(['anonymage', 'pleenk', 'agego'] as const).map((name) => ({
      client_id: `${name}-client`,
      client_secret: `${name}-secret-0123456789`,
      redirect_uris: callback(name),
    })),
    {
      client_id: 'paypal-client',
      client_secret: 'paypal-secret-0123456789',
      redirect_uris: callback('paypal'),
      token_endpoint_auth_method: 'client_secret_post',
    },
    // Implicit flow to an http loopback address is only accepted from a "native" client by oidc-provider.
    {
      client_id: 'agekey-client',
      application_type: 'native',
      redirect_uris: callback('agekey'),
      response_types: ['id_token'],
      grant_types: ['implicit'],
      token_endpoint_auth_method: 'none',
    },
  ];
}
