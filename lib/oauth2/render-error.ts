import { errors, type ErrorOut, type KoaContextWithOIDC } from 'oidc-provider';
import { translator } from '../i18n/catalogue.js';
import { negotiateLanguage } from '../i18n/negotiate.js';
import { render } from '../http/render.js';

/** Routes a visitor's browser opens; every other route (token, introspection...) answers machines in JSON. */
const VISITOR_ROUTES = new Set(['authorization', 'resume']);

function messageKey(out: ErrorOut, error: Error): string {
  if (error instanceof errors.SessionNotFound) return 'oauth2.error.expired';
  switch (out.error) {
    case 'invalid_client':
      return 'oauth2.error.unknownClient';
    case 'invalid_redirect_uri':
      return 'oauth2.error.redirectUri';
    case 'server_error':
      return 'oauth2.error.generic';
    default:
      return 'oauth2.error.invalidRequest';
  }
}

const stringParam = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * oidc-provider's `renderError`: an error it cannot send back to a registered redirect_uri. A visitor gets an HTML
 * page in their language (never JSON, never a redirect to an unregistered address); a machine gets RFC 6749 JSON.
 */
export async function renderError(ctx: KoaContextWithOIDC, out: ErrorOut, error: Error): Promise<void> {
  if (!VISITOR_ROUTES.has(ctx.oidc.route)) {
    ctx.body = out;
    return;
  }
  const requested = stringParam(ctx.oidc.params?.['language']) ?? stringParam(ctx.query['language']);
  const language = negotiateLanguage(requested, undefined, ctx.get('Accept-Language'));
  render(ctx, 'error.njk', language, { message: translator(language)(messageKey(out, error)) }, ctx.status);
}
