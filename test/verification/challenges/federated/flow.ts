import { expect } from 'chai';
import type { TestApp } from '../../../helpers/app.js';
import { Browser, formOf, linkWithText, locationOf, type Page } from '../../../helpers/browser.js';
import type { ClientFixture } from '../../../helpers/fixtures.js';
import { accept } from '../../../helpers/visitor.js';
import { authorizationUrl } from '../../../helpers/relying-party.js';

/** A visitor's browser reading English pages; it crosses to the upstream provider whenever a test does not stop it. */
export const visitorBrowser = (): Browser => new Browser(undefined, { headers: { 'accept-language': 'en' } });

/** An authorization for one federated challenge: entry point, prompt accepted, on to the first page toward the provider (or the website). */
export async function startVisit(
  app: TestApp,
  client: ClientFixture,
  challenge: string,
  upstreamOrigin: string,
  browser = visitorBrowser(),
): Promise<{ browser: Browser; hop: Page }> {
  const stopAt = [upstreamOrigin, client.redirectUri];
  const prompt = await browser.open(
    new URL(authorizationUrl(app.url, client, 'checker', { state: 'rp-state', challenges: challenge })),
    { stopAt },
  );
  if (prompt.status !== 200 || !prompt.url.pathname.match(/\/interaction\/[^/]+$/)) return { browser, hop: prompt };
  const hop = await accept(browser, prompt, { stopAt });
  return { browser, hop };
}

/** The link of our start page that leads to the provider. */
export function linkToProvider(page: Page): URL {
  expect(page.status, `the start page at ${page.url.pathname}`).to.equal(200);
  return linkWithText(page, 'Continue to ');
}

/** Goes to the provider and back, as far as our next page (or the website, which nothing serves here). */
export function visitProvider(browser: Browser, toProvider: URL, redirectUri: string): Promise<Page> {
  return browser.open(toProvider, { stopAt: redirectUri });
}

/** What our relay script does on a fragment answer: post the fragment's fields with the page's form token. */
export function relayFragment(browser: Browser, page: Page, redirectUri: string): Promise<Page> {
  const fragment = Object.fromEntries(new URLSearchParams(page.url.hash.slice(1)));
  return browser.submit(formOf(page, { id: 'federated-relay' }), fragment, undefined, { stopAt: redirectUri });
}

/** From the result page, continue to the website: the redirect_uri with the code. */
export async function continueToWebsite(browser: Browser, result: Page, redirectUri: string): Promise<URL> {
  expect(result.status, `the result page at ${result.url.pathname}`).to.equal(200);
  const website = locationOf(
    await browser.submit(formOf(result, { action: '/result/continue' }), {}, undefined, { stopAt: redirectUri }),
  );
  expect(`${website.origin}${website.pathname}`).to.equal(redirectUri);
  return website;
}
