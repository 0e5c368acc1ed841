import type { Next } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { SCOPE } from './protocol.js';

/** OpenID Connect members the provider lists although we issue no ID tokens and serve no userinfo. */
const OPENID_ONLY = [
  'claims_supported',
  'claims_parameter_supported',
  'claim_types_supported',
  'id_token_signing_alg_values_supported',
  'subject_types_supported',
  'request_uri_parameter_supported',
];

/** The RFC 8414 document is the provider's discovery, trimmed to what this server really does. */
export async function authorizationServerMetadata(ctx: KoaContextWithOIDC, next: Next): Promise<void> {
  await next();
  if (ctx.oidc?.route !== 'discovery' || ctx.status !== 200) return;
  const metadata = { ...(ctx.body as Record<string, unknown>) };
  for (const member of OPENID_ONLY) delete metadata[member];
  metadata['scopes_supported'] = [SCOPE];
  metadata['response_modes_supported'] = ['query'];
  ctx.body = metadata;
}
