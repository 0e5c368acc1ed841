import type { Context } from 'koa';
import nunjucks from 'nunjucks';
import { translator } from '../i18n/catalogue.js';
import type { Language } from '../i18n/languages.js';
import { viewsDir } from '../paths.js';
import { csrfToken } from './csrf.js';

const environment = new nunjucks.Environment(new nunjucks.FileSystemLoader(viewsDir, { noCache: false }), {
  autoescape: true,
  throwOnUndefined: false,
});

/**
 * Renders views/<template> as the HTML response in `language`: the template gets `t` (translate),
 * `lang` (for <html lang>), and `csrf` (the form token).
 */
export function render(ctx: Context, template: string, language: Language, variables: Record<string, unknown> = {}, status = 200): void {
  const html = environment.render(template, { ...variables, t: translator(language), lang: language, csrf: csrfToken(ctx) });
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = html;
}
