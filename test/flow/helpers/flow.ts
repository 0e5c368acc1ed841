import { expect } from 'chai';
import type { ClientFixture } from '../../helpers/fixtures.js';
import { Browser, formWithAction, type Landing, type Page } from './browser.js';

/** The authorization request a website sends its visitor to (checker or login entry). */
export function authorizeUrl(base: string, client: ClientFixture, entry: 'checker' | 'login' = 'checker', extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({ client_id: client.clientId, redirect_uri: client.redirectUri, state: 'st-42', ...extra });
  return `${base}/v1/oauth2/${entry}?${params.toString()}`;
}

export const expectPage = (landing: Landing): Page => {
  if (!landing.page) throw new Error(`expected a page, left for ${landing.left.toString()}`);
  return landing.page;
};

/** The website's callback: the redirect that left the service, checked against the client's redirect_uri and state. */
export function callbackOf(landing: Landing, client: ClientFixture): URLSearchParams {
  if (!landing.left) throw new Error(`expected a redirect to the website, got page ${landing.page.url} (${landing.page.status}):\n${landing.page.html.slice(0, 2000)}`);
  expect(`${landing.left.origin}${landing.left.pathname}`).to.equal(client.redirectUri);
  expect(landing.left.searchParams.get('state')).to.equal('st-42');
  return landing.left.searchParams;
}

/** Accepts the authorization prompt. */
export async function accept(browser: Browser, prompt: Page): Promise<Landing> {
  const form = formWithAction(prompt, '/consent');
  return browser.submit(form, {}, { name: 'decision', value: 'accept' });
}

/** Exchanges the code at the token endpoint (client_secret_basic), then reads the Resources endpoint. */
export async function redeem(base: string, client: ClientFixture, code: string): Promise<Record<string, unknown>> {
  const token = await fetch(`${base}/v1/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUri }).toString(),
  });
  const tokenBody = (await token.json()) as { access_token?: string };
  expect(token.status, JSON.stringify(tokenBody)).to.equal(200);
  const resources = await fetch(`${base}/v1/oauth2/resources`, { headers: { authorization: `Bearer ${tokenBody.access_token}` } });
  expect(resources.status).to.equal(200);
  return ((await resources.json()) as { resources: Record<string, unknown> }).resources;
}

/** Submits the sandbox page of the current challenge. */
export async function submitSandbox(browser: Browser, page: Page, choice: Record<string, string> = {}): Promise<Landing> {
  return browser.submit(formWithAction(page, '/submit'), choice);
}

/** From the result page (after a pass): continue to the website without saving. */
export async function continueWithoutSaving(browser: Browser, result: Page): Promise<Landing> {
  return browser.submit(formWithAction(result, '/result/continue'));
}

/** The `lang` of a page's <html> element. */
export const htmlLang = (page: Page): string | undefined => /<html lang="([^"]+)">/.exec(page.html)?.[1];
