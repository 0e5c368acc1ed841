import { expect } from 'chai';
import { useApp } from '../helpers/app.js';
import { Browser, csrfOf, formOf, type Page } from '../helpers/browser.js';
import {
  createClientFixture,
  createWebmasterFixture,
  type ClientFixture,
  type WebmasterFixture,
} from '../helpers/fixtures.js';
import { expectPage } from '../helpers/visitor.js';
import { authorizationUrl } from '../helpers/relying-party.js';

const CSRF_COOKIES = ['ap_csrf', 'ap_csrf.sig'];

/** Puts `from`'s CSRF cookie pair into `into`'s jar, as a cookie-tossing attacker would. */
function plantCsrfCookies(from: Browser, into: Browser, url: string): void {
  for (const name of CSRF_COOKIES) into.cookies.set(name, from.cookies.get(name)!, url, '/');
}

/** A POST with the browser's cookies and extra headers, not followed. */
function rawPost(
  browser: Browser,
  address: string,
  fields: Record<string, string>,
  headers: Record<string, string>,
): Promise<Response> {
  return fetch(address, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      cookie: browser.cookies.header(address),
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
    },
    body: new URLSearchParams(fields).toString(),
  });
}

describe('security: CSRF tokens bound to their interaction or session, and an Origin check', function () {
  this.timeout(120_000); // the first app of a process starts the embedded database
  const app = useApp();
  let client: ClientFixture;
  let webmaster: WebmasterFixture;
  before(async () => {
    webmaster = await createWebmasterFixture(app.provider.runtime);
    client = await createClientFixture(app.provider.runtime, webmaster.id, {
      environment: 'TEST',
      challenges: ['selfie'],
    });
  });

  const prompt = async (browser: Browser): Promise<Page> =>
    expectPage(await browser.open(authorizationUrl(app.url, client)));

  it("refuses another browser's CSRF cookie and token in a victim's interaction", async () => {
    const attacker = new Browser(app.url);
    const attackerToken = csrfOf(await prompt(attacker));
    const victim = new Browser(app.url);
    const consent = formOf(await prompt(victim), { action: '/consent' });

    plantCsrfCookies(attacker, victim, app.url);
    const refused = await victim.submit(consent, { _csrf: attackerToken }, { name: 'decision', value: 'accept' });
    expect(refused.status).to.equal(403);
    expect(refused.html).to.contain('This form has expired');

    // The victim's own page, reloaded, still works: the check is about the pair, not the browser.
    const reloaded = formOf(await prompt(victim), { action: '/consent' });
    const accepted = await victim.submit(reloaded, {}, { name: 'decision', value: 'accept' });
    expect(accepted.status).to.equal(200);
    expect(accepted.url.pathname).to.match(/\/challenge\/selfie\//);
  });

  it('refuses a cross-origin POST on the visitor pages with the visitor error page, and accepts one from the issuer', async () => {
    const victim = new Browser(app.url);
    const consent = formOf(await prompt(victim), { action: '/consent' });
    const fields = { ...consent.fields, decision: 'accept' };
    const foreign: Array<Record<string, string>> = [
      { origin: 'https://evil.example' },
      { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' },
      { origin: 'null', 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of foreign) {
      const answer = await rawPost(victim, consent.action.href, fields, headers);
      expect(answer.status, JSON.stringify(headers)).to.equal(403);
      expect(answer.headers.get('content-type')).to.match(/^text\/html/);
      expect(await answer.text()).to.contain('<html lang="en">');
    }
    // What a browser sends for our own form: its origin, or `null` under our no-referrer policy, and same-origin.
    const own = await rawPost(victim, consent.action.href, fields, { origin: 'null', 'sec-fetch-site': 'same-origin' });
    expect(own.status).to.equal(303);
  });

  it("refuses a cross-origin POST on the platform, and another session's CSRF pair in a signed-in session", async () => {
    const stranger = new Browser(app.url);
    await stranger.open('/platform/signin');
    const crossSite = await rawPost(
      stranger,
      `${app.url}/platform/signin`,
      { _csrf: stranger.csrf, email: webmaster.email, password: webmaster.password },
      { origin: 'https://evil.example' },
    );
    expect(crossSite.status).to.equal(403);
    expect(crossSite.headers.get('set-cookie') ?? '').not.to.contain('ap_platform=');

    const signIn = async (browser: Browser, who: WebmasterFixture): Promise<Page> => {
      await browser.open('/platform/signin');
      return browser.post('/platform/signin', { email: who.email, password: who.password });
    };
    const attacker = new Browser(app.url);
    const otherWebmaster = await createWebmasterFixture(app.provider.runtime);
    const attackerAccount = await signIn(attacker, otherWebmaster);
    const attackerToken = csrfOf(attackerAccount);
    const victim = new Browser(app.url);
    expect((await signIn(victim, webmaster)).url.pathname).to.equal('/platform/websites');

    const tokens = () => app.provider.db('api_tokens').where('webmaster_id', webmaster.id).select('id');
    const before = await tokens();
    plantCsrfCookies(attacker, victim, app.url);
    const refused = await victim.post(
      '/platform/keys',
      { name: 'planted', access: 'write', website: 'all', expires: 'never' },
      { csrf: attackerToken },
    );
    expect(refused.status).to.equal(403);
    expect(await tokens()).to.deep.equal(before);
  });
});
