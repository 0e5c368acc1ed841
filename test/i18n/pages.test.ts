import { expect } from 'chai';
import type { Context } from 'koa';
import { LANGUAGES } from '../../lib/i18n/languages.js';
import { render } from '../../lib/http/render.js';
import { areaNames, fullPages, readArea } from './locale-files.js';
import { PAGE_SAMPLES } from './page-samples.js';

// Every full page (a template extending layout.njk), discovered when the test runs, in every language:
// <html lang> is the language, and no translation key or {placeholder} shows through.

/** Just what render() touches: the CSRF cookie, the cookie keys the form token is made with, and the response fields. */
function fakeContext(): Context & { body: string } {
  const ctx = {
    app: { keys: ['sample-cookie-key'] },
    state: {},
    cookies: { get: () => 'sample-csrf-secret', set() {} },
    secure: false,
    set() {},
    status: 0,
    type: '',
    body: '',
  };
  return ctx as unknown as Context & { body: string };
}

const allKeys = new Set(areaNames().flatMap((area) => Object.keys((readArea('en', area) ?? {}) as object)));

/** Catalogue keys and unreplaced placeholders that made it into the page. */
function leaks(html: string): string[] {
  const keys = [...html.matchAll(/[A-Za-z0-9_.-]+/g)]
    .map(([token]) => token.replace(/\.+$/, ''))
    .filter((token) => allKeys.has(token));
  const placeholders = [...html.matchAll(/\{\w+\}/g)].map(([match]) => match);
  return [...new Set([...keys, ...placeholders])];
}

describe('every page in every language', () => {
  const pages = fullPages();

  it('finds the pages', () => {
    expect(pages).to.include('interaction/error.njk');
  });

  for (const page of pages) {
    for (const language of LANGUAGES) {
      it(`${page} in ${language}`, () => {
        for (const variables of PAGE_SAMPLES[page] ?? [{}]) {
          const ctx = fakeContext();
          render(ctx, page, language, variables);
          expect(ctx.body).to.contain(`<html lang="${language}">`);
          expect(
            leaks(ctx.body),
            `raw keys or placeholders in ${page} (${language}) with ${JSON.stringify(variables)}`,
          ).to.deep.equal([]);
        }
      });
    }
  }
});
