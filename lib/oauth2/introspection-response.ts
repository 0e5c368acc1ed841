import type { Next } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';

/**
 * Introspection (RFC 7662) without `sub`: the subject is the visitor's account or per-browser id, the same for every
 * website, so showing it would let websites correlate one visitor across sites. `sub` is optional in RFC 7662 §2.2.
 */
export async function introspectionResponse(ctx: KoaContextWithOIDC, next: Next): Promise<void> {
  await next();
  if (ctx.oidc?.route !== 'introspection' || ctx.status !== 200) return;
  const body = ctx.body as Record<string, unknown> | undefined;
  if (body && 'sub' in body) {
    const { sub: _subject, ...rest } = body;
    ctx.body = rest;
  }
}
