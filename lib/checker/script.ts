import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Context } from 'koa';
import { catalogues } from '../i18n/catalogue.js';
import { LANGUAGES } from '../i18n/languages.js';
import { viewsDir } from '../paths.js';

/** The modal's messages the script carries, by their short name in the script. */
const MODAL_MESSAGES = ['title', 'body', 'button', 'waiting', 'blocked'] as const;

export interface CheckerScript {
  body: string;
  /** content hash: the script's version and its ETag */
  version: string;
  gzippedBytes: number;
}

/** Whole-line comments and indentation go: the shipped script is what runs, not what is read. */
const compact = (source: string): string =>
  source
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('//') && !line.startsWith('/*') && !line.startsWith('*'))
    .join('\n');

/**
 * views/checker/checker.js with its messages (views/locales/<lang>/checker.json, so the six languages have one
 * owner) and the service's logo for dark backgrounds (views/static/logo-on-dark.svg) filled in. Built once.
 */
export function buildCheckerScript(): CheckerScript {
  const messages = Object.fromEntries(
    LANGUAGES.map((language) => [
      language,
      Object.fromEntries(MODAL_MESSAGES.map((name) => [name, catalogues[language][`checker.modal.${name}`]])),
    ]),
  );
  const logo = readFileSync(join(viewsDir, 'static', 'logo-on-dark.svg'), 'utf8').trim();
  const template = compact(readFileSync(join(viewsDir, 'checker', 'checker.js'), 'utf8'));
  const withContent = template
    .replace('__MESSAGES__', () => JSON.stringify(messages))
    .replace('__LOGO__', () => JSON.stringify(logo));
  const version = createHash('sha256').update(withContent).digest('base64url').slice(0, 16);
  const body = withContent.replace('__VERSION__', version);
  return { body, version, gzippedBytes: gzipSync(body).length };
}

/**
 * GET /v1/checker.js: public and cacheable (an hour, then revalidated by its ETag, so a new version reaches every
 * page within the hour), loadable from any origin, with or without `crossorigin`.
 */
export function serveCheckerScript(script: CheckerScript) {
  const etag = `"${script.version}"`;
  return (ctx: Context): void => {
    ctx.set('Cache-Control', 'public, max-age=3600, stale-while-revalidate=86400');
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
    ctx.set('X-Checker-Version', script.version);
    ctx.etag = etag;
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = script.body;
  };
}
