import type { Context } from 'koa';

export type CspDirectives = Record<string, string[]>;

declare module 'koa' {
  interface DefaultState {
    /** this response's CSP when a page widened it (cspOf); else the default, built once */
    csp?: CspDirectives;
  }
}

/** The strict default for our HTML: only our own scripts, styles and images; no framing; forms post to us. */
export function defaultCsp(): CspDirectives {
  return {
    'default-src': ["'none'"],
    'script-src': ["'self'"],
    'style-src': ["'self'"],
    'img-src': ["'self'", 'data:'],
    'font-src': ["'self'"],
    'connect-src': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
    'base-uri': ["'none'"],
  };
}

/** A page widens its own CSP here (e.g. form-action to the client's redirect origin) before it renders. */
export function cspOf(ctx: Context): CspDirectives {
  ctx.state.csp ??= defaultCsp();
  return ctx.state.csp;
}

const serialize = (csp: CspDirectives): string =>
  Object.entries(csp)
    .map(([name, values]) => `${name} ${values.join(' ')}`)
    .join('; ');

/** The header of every HTML page that did not widen its policy: written once, not per response. */
const DEFAULT_CSP = serialize(defaultCsp());

/** `ctx.response.is('html')` without a media-type parser per response: the type before any parameter, any case. */
const isHtml = (ctx: Context): boolean => ctx.response.type.trim().toLowerCase() === 'text/html';

/**
 * Sets the headers every response carries, once it is answered (lib/http/envelope.ts), and the CSP on every HTML
 * response that does not set its own. The values are fixed at start-up; only a page that widened its CSP (cspOf)
 * has its policy written for it.
 */
export function securityHeaders(options: { https: boolean }): (ctx: Context) => void {
  return (ctx) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    if (!ctx.response.get('X-Frame-Options')) ctx.set('X-Frame-Options', 'DENY');
    if (options.https) ctx.set('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    if (isHtml(ctx) && !ctx.response.get('Content-Security-Policy')) {
      const { csp } = ctx.state;
      ctx.set('Content-Security-Policy', csp ? serialize(csp) : DEFAULT_CSP);
    }
  };
}
