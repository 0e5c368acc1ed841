import type { Context } from 'koa';
import nunjucks from 'nunjucks';
import { brandOf, brandView, type BrandView } from '../branding/assets.js';
import { DEFAULT_BRAND_COLOR, DEFAULT_BRAND_NAME } from '../branding/settings.js';
import { translator, type Translate } from '../i18n/catalogue.js';
import type { Language } from '../i18n/languages.js';
import { viewsDir } from '../paths.js';
import { csrfToken } from './csrf.js';

const environment = new nunjucks.Environment(new nunjucks.FileSystemLoader(viewsDir, { noCache: false }), {
  autoescape: true,
  throwOnUndefined: false,
});

/** A page rendered outside the app's middleware (no brand on the request) shows the project's own. */
const DEFAULT_BRAND = brandView({ name: DEFAULT_BRAND_NAME, color: DEFAULT_BRAND_COLOR });

/** The catalogue's `brand.name` is the default; the operator's BRAND_NAME replaces it in every language. */
const branded =
  (t: Translate, brand: BrandView): Translate =>
  (key, params) =>
    key === 'brand.name' ? brand.name : t(key, params);

/**
 * Renders views/<template> as the HTML response in `language`: the template gets `t` (translate),
 * `lang` (for <html lang>), `csrf` (the form token) and `brand` (the operator's name, logo and footer links).
 */
export function render(
  ctx: Context,
  template: string,
  language: Language,
  variables: Record<string, unknown> = {},
  status = 200,
): void {
  const brand = brandOf(ctx) ?? DEFAULT_BRAND;
  const html = environment.render(template, {
    ...variables,
    t: branded(translator(language), brand),
    lang: language,
    csrf: csrfToken(ctx),
    brand,
  });
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = html;
}
