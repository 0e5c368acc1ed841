import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Koa from 'koa';
import type { Context, Middleware } from 'koa';
import { viewsDir } from '../paths.js';
import type { Branding } from './settings.js';

/** Where the pages find the operator's logo and colour: served from our own origin, so the strict CSP holds. */
const BRAND_PREFIX = '/brand/';
export const BRAND_PATHS = {
  prefix: BRAND_PREFIX,
  theme: `${BRAND_PREFIX}theme.css`,
  logoPrefix: `${BRAND_PREFIX}logo.`,
  favicon: '/favicon.ico',
} as const;
const DEFAULT_LOGO = '/static/logo-on-light.svg';

/** What the templates get as `brand`: the name, links and where the logo is. */
export interface BrandView {
  name: string;
  logoUrl: string;
  themeUrl: string;
  operatorName?: string;
  privacyPolicyUrl?: string;
  termsUrl?: string;
  supportUrl?: string;
  supportEmail?: string;
}

/**
 * The colour as CSS custom properties. Only the stylesheet uses them (no inline style), so the CSP stays strict.
 * A darker shade for hover and focus borders is mixed in CSS from the same colour.
 */
const themeCss = (branding: Branding): string => `:root { --brand: ${branding.color}; }\n`;

export function brandView(branding: Branding): BrandView {
  const { logo, color: _color, ...rest } = branding;
  return {
    ...rest,
    logoUrl: logo ? BRAND_PATHS.logoPrefix + logo.extension : DEFAULT_LOGO,
    themeUrl: BRAND_PATHS.theme,
  };
}

const BRAND = Symbol('brand');

/** The brand every page of this app shows (render.ts reads it; undefined outside an app that showBrand was given). */
export const brandOf = (ctx: Context): BrandView | undefined => (ctx as { [BRAND]?: BrandView })[BRAND];

/**
 * Tells every page `app` renders the brand, once: koa makes each request's context from `app.context`, so the brand
 * is there for every request, its error pages included, without being set on each.
 */
export function showBrand(app: Koa, branding: Branding): void {
  Object.defineProperty(app.context, BRAND, { value: brandView(branding) });
}

/** Serves the theme stylesheet and the logo from memory, under BRAND_PATHS.prefix (the assets surface, lib/app/surfaces.ts). */
export function brandingAssets(branding: Branding): Middleware {
  const theme = Buffer.from(themeCss(branding));
  const logoPath = branding.logo ? BRAND_PATHS.logoPrefix + branding.logo.extension : undefined;
  // Browsers ask for /favicon.ico whatever the page's <link rel="icon"> says: the brand's logo answers it (an SVG or
  // PNG under that name is shown by every current browser).
  const favicon = branding.logo ?? { type: 'image/svg+xml', body: readFileSync(join(viewsDir, DEFAULT_LOGO)) };
  return async (ctx, next) => {
    const reading = ctx.method === 'GET' || ctx.method === 'HEAD';
    if (reading && ctx.path === BRAND_PATHS.favicon) {
      ctx.type = favicon.type;
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
      ctx.body = favicon.body;
      return;
    }
    if (reading && ctx.path === BRAND_PATHS.theme) {
      ctx.type = 'text/css; charset=utf-8';
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = theme;
      return;
    }
    if (reading && logoPath && ctx.path === logoPath && branding.logo) {
      ctx.type = branding.logo.type;
      ctx.set('Cache-Control', 'public, max-age=300');
      // An operator's SVG may carry script: as its own document it must run nothing.
      ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
      ctx.body = branding.logo.body;
      return;
    }
    await next();
  };
}
