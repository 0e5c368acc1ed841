import { errors, type ErrorOut, type KoaContextWithOIDC } from 'oidc-provider';
import { negotiateLanguage } from '../i18n/negotiate.js';
import { render } from '../http/render.js';
import {
  logDeveloperError,
  VISITOR_ERROR_PAGE,
  type DeveloperDetails,
  type VisitorErrorKind,
} from '../http/visitor-errors.js';
import type { Logger } from '../log.js';

/** Routes a visitor's browser opens; every other route (token, introspection...) answers machines in JSON. */
const VISITOR_ROUTES = new Set(['authorization', 'resume']);

/** The visitor error page's kind for an oidc-provider error. */
function kindOf(out: ErrorOut, error: Error): VisitorErrorKind {
  if (error instanceof errors.SessionNotFound) return 'request_expired';
  switch (out.error) {
    case 'invalid_client':
      return 'unknown_client';
    case 'invalid_redirect_uri':
      return 'redirect_uri';
    case 'server_error':
      return 'server';
    default:
      return 'invalid_request';
  }
}

/** The parameter an error code points at, when the code says which one it is. */
const PARAMETER_OF: Record<string, string> = {
  invalid_client: 'client_id',
  invalid_redirect_uri: 'redirect_uri',
  invalid_scope: 'scope',
};

const stringParam = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** What the website's developer needs to fix the request: the code, oidc-provider's description, the value at fault. */
function developerDetails(ctx: KoaContextWithOIDC, out: ErrorOut): DeveloperDetails {
  const param = (name: string): string | undefined =>
    stringParam(ctx.oidc.params?.[name]) ?? stringParam(ctx.query[name]);
  const parameter = PARAMETER_OF[out.error];
  return {
    error: out.error,
    ...(out.error_description ? { description: out.error_description } : {}),
    ...(parameter ? { parameter, value: param(parameter) ?? '' } : {}),
    ...(param('client_id') ? { clientId: param('client_id') } : {}),
  };
}

/**
 * oidc-provider's `renderError`: an error it cannot send back to a registered redirect_uri. A visitor gets an HTML
 * page in their language (never JSON, never a redirect to an unregistered address) with the details for the
 * website's developer, logged at info; a machine gets RFC 6749 JSON.
 */
export const renderError =
  (log: Logger) =>
  async (ctx: KoaContextWithOIDC, out: ErrorOut, error: Error): Promise<void> => {
    if (!VISITOR_ROUTES.has(ctx.oidc.route)) {
      ctx.body = out;
      return;
    }
    const requested = stringParam(ctx.oidc.params?.['language']) ?? stringParam(ctx.query['language']);
    const language = negotiateLanguage(requested, undefined, ctx.get('Accept-Language'));
    // An expired interaction is the visitor's (a stale tab), not the website's.
    const developer =
      error instanceof errors.SessionNotFound || out.error === 'server_error' ? undefined : developerDetails(ctx, out);
    if (developer) logDeveloperError(log, developer);
    // The one visitor error page, as every other HTML error.
    render(ctx, VISITOR_ERROR_PAGE, language, { kind: kindOf(out, error), developer }, ctx.status);
  };
