import type { Context } from 'koa';
import type { PlatformServices } from './services.js';

/** A secret shown once, right after it was made, and never again. */
export interface OneTimeDisplay<T> {
  /** Holds `value` for the next page this webmaster opens under the path. */
  hold(ctx: Context, runtime: Pick<PlatformServices, 'sealer'>, webmasterId: number, value: T): void;
  /** The value held for this webmaster, once; a cookie that does not unseal, is malformed or is someone else's is dropped. */
  take(ctx: Context, runtime: Pick<PlatformServices, 'sealer'>, webmasterId: number): T | undefined;
}

/**
 * A new secret (an API token, a client secret, a webhook's signing secret) crosses the post/redirect/get in a sealed,
 * five-minute cookie that the page reads once and clears: reloading it neither shows the secret again nor makes
 * another (which would replace the one just copied).
 */
export function oneTimeDisplay<T>(
  cookie: string,
  path: string,
  isValue: (value: unknown) => value is T,
): OneTimeDisplay<T> {
  const options = (ctx: Context) =>
    ({ httpOnly: true, sameSite: 'strict', secure: ctx.secure, path, overwrite: true }) as const;
  return {
    hold(ctx, runtime, webmasterId, value) {
      ctx.cookies.set(cookie, runtime.sealer.seal(JSON.stringify({ webmasterId, value })), {
        ...options(ctx),
        maxAge: 5 * 60 * 1000,
      });
    },
    take(ctx, runtime, webmasterId) {
      const sealed = ctx.cookies.get(cookie);
      if (!sealed) return undefined;
      ctx.cookies.set(cookie, null, options(ctx));
      try {
        const held = JSON.parse(runtime.sealer.unseal(sealed)) as { webmasterId?: unknown; value?: unknown };
        return held.webmasterId === webmasterId && isValue(held.value) ? held.value : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

/** A new API token, for the account page. */
export const newApiToken = oneTimeDisplay(
  'ap_new_token',
  '/platform/keys',
  (value): value is string => typeof value === 'string',
);

/** A website's new secret: a client secret (with its environment and client id) or a webhook's signing secret. */
export interface NewWebsiteSecret {
  websiteId: number;
  kind: 'client' | 'webhook';
  /** the environment of a client secret, the URL of a webhook */
  label: string;
  secret: string;
}

export const newWebsiteSecret = oneTimeDisplay(
  'ap_new_secret',
  '/platform/websites',
  (value): value is NewWebsiteSecret => {
    const held = value as Partial<NewWebsiteSecret> | null;
    return (
      typeof held === 'object' &&
      held !== null &&
      typeof held.websiteId === 'number' &&
      (held.kind === 'client' || held.kind === 'webhook') &&
      typeof held.label === 'string' &&
      typeof held.secret === 'string'
    );
  },
);
