import { expect } from 'chai';
import type { ClientFixture } from '../../../helpers/fixtures.js';
import { formOf, locationOf, type Browser, type Page } from '../../../helpers/browser.js';

/** The authorization request a website sends its visitor to (checker or login entry). */
export function authorizeUrl(base: string, client: ClientFixture, entry: 'checker' | 'login' = 'checker', extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({ client_id: client.clientId, redirect_uri: client.redirectUri, state: 'st-42', ...extra });
  return `${base}/v1/oauth2/${entry}?${params.toString()}`;
}

export const expectPage = (page: Page): Page => {
  if (page.location) throw new Error(`expected a page, left for ${page.location.href}`);
  return page;
};

/** The website's callback: the redirect that left the service, checked against the client's redirect_uri and state. */
export function callbackOf(landing: Page, client: ClientFixture): URLSearchParams {
  const website = locationOf(landing);
  expect(`${website.origin}${website.pathname}`).to.equal(client.redirectUri);
  expect(website.searchParams.get('state')).to.equal('st-42');
  return website.searchParams;
}

/** Accepts the authorization prompt. */
export async function accept(browser: Browser, prompt: Page): Promise<Page> {
  const form = formOf(prompt, { action: '/consent' });
  return browser.submit(form, {}, { name: 'decision', value: 'accept' });
}

/** Submits the sandbox page of the current challenge. */
export async function submitSandbox(browser: Browser, page: Page, choice: Record<string, string> = {}): Promise<Page> {
  return browser.submit(formOf(page, { action: '/submit' }), choice);
}

/** From the result page (after a pass): continue to the website without saving. */
export async function continueWithoutSaving(browser: Browser, result: Page): Promise<Page> {
  return browser.submit(formOf(result, { action: '/result/continue' }));
}

/** The `lang` of a page's <html> element. */
export const htmlLang = (page: Page): string | undefined => /<html lang="([^"]+)">/.exec(page.html)?.[1];
