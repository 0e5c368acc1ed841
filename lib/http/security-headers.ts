import type { Context, Middleware } from 'koa';

export type CspDirectives = Record<string, string[]>;

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
  const state = ctx.state as { csp?: CspDirectives };
  state.csp ??= defaultCsp();
  return state.csp;
}

const serialize = (csp: CspDirectives): string =>
  Object.entries(csp).map(([name, values]) => `${name} ${values.join(' ')}`).join('; ');

/** Headers on every response; the CSP on every HTML response that does not set its own. */
export function securityHeaders(options: { https: boolean }): Middleware {
  return async (ctx, next) => {
    await next();
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    if (!ctx.response.get('X-Frame-Options')) ctx.set('X-Frame-Options', 'DENY');
    if (options.https) ctx.set('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    if (ctx.response.is('html') && !ctx.response.get('Content-Security-Policy')) {
      ctx.set('Content-Security-Policy', serialize(cspOf(ctx)));
    }
  };
}
