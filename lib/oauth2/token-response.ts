import type { Next } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { epochSeconds } from '../clock.js';

/**
 * Shapes the token endpoint's answer as docs/integration.md documents it, exactly: token_type, access_token, expires_in and
 * expires_at (unix seconds). Registered with provider.use(), so it wraps the provider's own handler.
 */
export async function tokenResponse(ctx: KoaContextWithOIDC, next: Next): Promise<void> {
  await next();
  if (ctx.oidc?.route !== 'token') return;
  ctx.set('Pragma', 'no-cache');
  const body = ctx.body as { token_type?: string; access_token?: string; expires_in?: number } | undefined;
  if (ctx.status !== 200 || !body?.access_token || body.expires_in === undefined) return;
  // The provider stamps the token's exp as "now + expires_in" on its own clock (the stored payload is not exposed).
  const expiresAt = epochSeconds(new Date()) + body.expires_in;
  ctx.body = {
    token_type: body.token_type,
    access_token: body.access_token,
    expires_in: body.expires_in,
    expires_at: expiresAt,
  };
}
