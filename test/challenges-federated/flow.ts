import { expect } from 'chai';
import type { TestApp } from '../helpers/app.js';
import type { ClientFixture } from '../helpers/fixtures.js';
import { Browser, csrfOf, formAction } from './browser.js';

/** Where a visit stands after a run of redirects: the last response and the URL it came from. */
export interface Hop {
  response: Response;
  url: URL;
}

/** An authorization for one federated challenge: entry point, prompt accepted, on to the first hop toward the provider (or the website). */
export async function startVisit(app: TestApp, client: ClientFixture, challenge: string, upstreamOrigin: string, browser = new Browser()): Promise<{ browser: Browser; hop: Hop }> {
  const query = new URLSearchParams({
    client_id: client.clientId, redirect_uri: client.redirectUri, response_type: 'code', scope: 'read', state: 'rp-state', challenges: challenge,
  });
  const stops = [upstreamOrigin, client.redirectUri];
  const entry = new URL(`/v1/oauth2/checker?${query.toString()}`, app.url);
  const prompt = await browser.follow(await browser.request(entry), entry, stops);
  if (prompt.response.status !== 200 || !prompt.url.pathname.match(/\/interaction\/[^/]+$/)) return { browser, hop: prompt };
  const html = await prompt.response.text();
  const consent = new URL(formAction(html), prompt.url);
  const accepted = await browser.request(consent, { method: 'POST', form: { _csrf: csrfOf(html), decision: 'accept' } });
  return { browser, hop: await browser.follow(accepted, consent, stops) };
}

/** The link of our start page that leads to the provider. */
export async function linkToProvider(page: Hop): Promise<URL> {
  expect(page.response.status, `the start page at ${page.url.pathname}`).to.equal(200);
  const href = /<a class="button" href="([^"]+)">Continue to /.exec(await page.response.text())?.[1];
  if (!href) throw new Error('no link to the provider on the page');
  return new URL(href.replaceAll('&amp;', '&'), page.url);
}

/** Goes to the provider and back, as far as our next page (or the website, which nothing serves here). */
export async function visitProvider(browser: Browser, toProvider: URL, redirectUri: string): Promise<Hop> {
  return browser.follow(await browser.request(toProvider), toProvider, redirectUri);
}

/** What our relay script does on a fragment answer: post the fragment's fields with the page's form token. */
export async function relayFragment(browser: Browser, page: Hop, redirectUri: string): Promise<Hop> {
  const html = await page.response.text();
  const action = new URL(formAction(html), page.url);
  const form = { _csrf: csrfOf(html), ...Object.fromEntries(new URLSearchParams(page.url.hash.slice(1))) };
  return browser.follow(await browser.request(action, { method: 'POST', form }), action, redirectUri, form);
}

/** From the result page, continue to the website: the redirect_uri with the code. */
export async function continueToWebsite(browser: Browser, result: Hop, redirectUri: string): Promise<URL> {
  expect(result.response.status, `the result page at ${result.url.pathname}`).to.equal(200);
  const html = await result.response.text();
  const action = new URL(formAction(html), result.url);
  const back = await browser.follow(await browser.request(action, { method: 'POST', form: { _csrf: csrfOf(html) } }), action, redirectUri);
  expect(`${back.url.origin}${back.url.pathname}`).to.equal(redirectUri);
  return back.url;
}
