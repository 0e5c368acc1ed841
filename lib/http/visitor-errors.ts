import type { Context, Middleware } from 'koa';
import { describeError } from './errors.js';
import { noteFailure } from './failure-log.js';
import { render } from './render.js';
import type { Language } from '../i18n/languages.js';
import { browserLanguage } from '../i18n/negotiate.js';
import type { Logger } from '../log.js';

/** The problems a visitor can meet on our pages; each has a title and an explanation in every language. */
/** The one page every HTML error is shown on (oidc-provider's included). */
export const VISITOR_ERROR_PAGE = 'interaction/error.njk';

export type VisitorErrorKind =
  | 'expired'
  | 'website'
  | 'unavailable'
  | 'too_many'
  | 'form_expired'
  | 'not_found'
  | 'bad_request'
  | 'server'
  | 'outage'
  // oidc-provider's errors on the visitor's routes (lib/oauth2/render-error.ts)
  | 'unknown_client'
  | 'redirect_uri'
  | 'invalid_request'
  | 'request_expired';

/**
 * What went wrong in the website's own request, shown under "For the website's developer" on the visitor's error
 * page (escaped like every template value) and logged at info: the visitor cannot fix it, the webmaster can.
 */
export interface DeveloperDetails {
  /** the OAuth 2.0 error code the website receives or would receive */
  error: string;
  description?: string;
  /** the request parameter at fault, and the value it carried */
  parameter?: string;
  value?: string;
  clientId?: string;
}

export class VisitorError extends Error {
  override name = 'VisitorError';
  constructor(
    readonly kind: VisitorErrorKind,
    readonly status: number,
    /** returnTo: where the visitor goes back to the website (the interaction already carries the error for it) */
    readonly options: { returnTo?: string; backUrl?: string; developer?: DeveloperDetails } = {},
  ) {
    super(kind);
  }
}

declare module 'koa' {
  interface DefaultState {
    /** the language a visitor's error page is written in, once the page that failed knew it */
    visitorLanguage?: Language;
  }
}

/** Remembers the negotiated page language so an error page later in the request speaks it too. */
export function setVisitorLanguage(ctx: Context, language: Language): void {
  ctx.state.visitorLanguage = language;
}

const visitorLanguage = (ctx: Context): Language => ctx.state.visitorLanguage ?? browserLanguage(ctx);

const KIND_OF_STATUS: Record<number, VisitorErrorKind> = {
  400: 'bad_request',
  403: 'form_expired',
  404: 'not_found',
  413: 'bad_request',
  415: 'bad_request',
  429: 'too_many',
  503: 'outage',
};

/**
 * Every error on a visitor's page becomes an HTML page in the visitor's language (never JSON, never a stack): ours, a
 * failed CSRF check (403), a rate limit (429, keeping Retry-After), a body the parser refused, or an unexpected failure.
 * Returns the function answering one caught error, for a handler that already catches (lib/http/envelope.ts).
 */
export function visitorErrorPage(log: Logger): (ctx: Context, error: unknown) => void {
  return (ctx, error) => {
    let kind: VisitorErrorKind;
    let status: number;
    let options: VisitorError['options'] = {};
    if (error instanceof VisitorError) {
      ({ kind, status, options } = error);
      if (options.developer) logDeveloperError(log, options.developer);
    } else {
      const described = describeError(error);
      status = described.status;
      kind = KIND_OF_STATUS[status] ?? (status >= 500 ? 'server' : 'bad_request');
      ctx.set(described.headers);
      if (status >= 500) noteFailure(ctx, error);
    }
    const retryAfter = ctx.response.get('Retry-After');
    // During an outage the same address works again once the database is back: offer it (a GET only, never a form post).
    const retryUrl = kind === 'outage' && ctx.method === 'GET' ? ctx.originalUrl : undefined;
    render(ctx, VISITOR_ERROR_PAGE, visitorLanguage(ctx), { kind, retryAfter, retryUrl, ...options }, status);
  };
}

/** The visitor's error page as a middleware, for a router that answers its own errors before the envelope would. */
export function visitorErrors(log: Logger): Middleware {
  const answer = visitorErrorPage(log);
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      answer(ctx, error);
    }
  };
}

/** A website's faulty request, at info: its webmaster's problem to fix, not ours (no alert), yet findable by client id. */
export function logDeveloperError(log: Logger, details: DeveloperDetails): void {
  log.info('authorization request refused', {
    client_id: details.clientId,
    error: details.error,
    error_description: details.description,
    parameter: details.parameter,
    value: details.value,
  });
}
