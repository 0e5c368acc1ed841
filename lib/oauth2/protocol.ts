/** The only scope there is: reading the verification result. It is also the default. */
export const SCOPE = 'read';

/** Where the OAuth2 surface answers. The provider's authorization route is the checker entry itself. */
export const OAUTH2_PATHS = {
  authorization: '/v1/oauth2/checker',
  token: '/v1/oauth2/token',
  resources: '/v1/oauth2/resources',
  introspection: '/v1/oauth2/token/introspection',
  revocation: '/v1/oauth2/token/revocation',
  jwks: '/v1/oauth2/jwks',
  metadata: '/.well-known/oauth-authorization-server',
  /** the interaction pages (the flow's router); oidc-provider sends the visitor here */
  interaction: (uid: string) => `/v1/oauth2/interaction/${uid}`,
} as const;

/** The back-channel paths: called by a website's server, never a browser; every answer is RFC 6749 JSON. */
export const BACK_CHANNEL_PATHS: readonly string[] = [
  OAUTH2_PATHS.token,
  OAUTH2_PATHS.resources,
  OAUTH2_PATHS.introspection,
  OAUTH2_PATHS.revocation,
];

/** The legacy paths answer exactly like their /v1/ twins. */
export const LEGACY_PATHS = {
  '/api/oauth2/token': OAUTH2_PATHS.token,
  '/api/oauth2/resources': OAUTH2_PATHS.resources,
} as const;

export type Flow = 'checker' | 'login';
export const FLOWS: readonly Flow[] = ['checker', 'login'];

/** The authorization entry points and the flow each one starts. */
export const ENTRY_FLOWS: Readonly<Record<string, Flow>> = {
  '/v1/oauth2/checker': 'checker',
  '/v1/oauth2/login': 'login',
  '/api/oauth2/checker': 'checker',
  '/api/oauth2/login': 'login',
};
