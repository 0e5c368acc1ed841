import { expect } from 'chai';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { isAllowedOrigin } from '../../lib/checker/origins.js';
import { regenerateWebsiteKey } from '../../lib/websites/index.js';
import { walkSandbox } from '../helpers/visitor.js';
import { startTestApp, useApp, type TestApp } from '../helpers/app.js';
import { Browser, decodeHtml, locationOf } from '../helpers/browser.js';
import { createClientFixture, createWebmasterFixture, TEST_ORIGIN } from '../helpers/fixtures.js';
import { issueToken, readResources, useOAuth2App } from '../oauth2/helpers/oauth2.js';

// The checker script surface (docs/checker.md) over real HTTP: the script, its check, the verification window.

const PAGE = 'http://127.0.0.1:5500';

interface Site {
  webmasterId: number;
  websiteId: number;
  live: string;
  test: string;
}

async function createSite(app: TestApp, regions: string[] = []): Promise<Site> {
  const { runtime } = app.provider;
  const webmaster = await createWebmasterFixture(runtime);
  const { websiteId, keys } = await createClientFixture(runtime, webmaster.id, {
    name: 'Night Shop',
    domain: 'shop.example',
    regions,
  });
  return { webmasterId: webmaster.id, websiteId, live: keys.LIVE, test: keys.TEST };
}

/** The check the script makes, as the browser sends it (a CORS script request carries the page's Origin). */
async function check(
  app: TestApp,
  query: string,
  origin?: string,
): Promise<{ response: Response; answer: Record<string, unknown> }> {
  const response = await fetch(`${app.url}/v1/checker/requirement.js?${query}`, { headers: origin ? { origin } : {} });
  const body = await response.text();
  const json = /_requirement\((\{.*\})\);$/.exec(body)?.[1];
  return { response, answer: json ? (JSON.parse(json) as Record<string, unknown>) : {} };
}

const startQuery = (key: string, extra: Record<string, string> = {}): string =>
  new URLSearchParams({ key, origin: PAGE, target: 'redirect', return_to: `${PAGE}/shop?item=1`, ...extra }).toString();

/**
 * Walks the sandbox to the checker's last page, which is ours and has nothing left to press (walkSandbox then
 * gives up), and returns that page's HTML.
 */
async function walkToResult(visitor: Browser, start: string): Promise<string> {
  const stuck = await walkSandbox(visitor, await visitor.open(start), PAGE).then(
    () => undefined,
    (error: Error) => error,
  );
  expect(stuck?.message, 'the walk ends on our result page').to.match(/^stuck on .*\/v1\/checker\/callback/);
  return visitor.html;
}

/** target=redirect: where the result page sends the visitor back to. */
const returnLink = (html: string): URL =>
  new URL(decodeHtml(/<a id="age-provider-return" href="([^"]+)"/.exec(html)![1]!));

async function verifyToken(app: TestApp, token: string, audience: string) {
  const jwks = (await (await fetch(`${app.url}/v1/oauth2/jwks`)).json()) as JSONWebKeySet;
  return jwtVerify(token, createLocalJWKSet(jwks), { issuer: app.url, audience, typ: 'age-verification+jwt' });
}

describe('the checker script surface', function () {
  this.timeout(120_000);
  const app = useApp({ env: { CHECKER_RATE_LIMIT_PER_IP: '1000' } });

  describe('GET /v1/checker.js', () => {
    it('is a cacheable script for any origin, revalidated by its ETag', async () => {
      const response = await fetch(`${app.url}/v1/checker.js?key=pk_test_x`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
      expect(response.headers.get('cache-control')).to.equal('public, max-age=3600, stale-while-revalidate=86400');
      expect(response.headers.get('access-control-allow-origin')).to.equal('*');
      const body = await response.text();
      expect(body).to.include(`version: VERSION`);
      expect(body, 'nothing a strict CSP refuses').not.to.match(
        /\beval\(|new Function|innerHTML|setAttribute\('style'/,
      );
      const etag = response.headers.get('etag')!;
      const again = await fetch(`${app.url}/v1/checker.js`, {
        headers: { 'if-none-match': etag, 'cache-control': 'max-age=0' },
      });
      expect(again.status).to.equal(304);
    });
  });

  describe('the check (GET /v1/checker/requirement.js)', () => {
    it('answers a TEST key on a loopback page with the requirement and the website', async () => {
      const site = await createSite(app);
      const { response, answer } = await check(app, `key=${site.test}`, PAGE);
      expect(response.status).to.equal(200);
      expect(response.headers.get('cache-control')).to.equal('no-store');
      expect(answer).to.include({ required: true, website: 'Night Shop', environment: 'TEST', age_threshold: 18 });
    });

    it('answers a LIVE key on an https page of the domain or a subdomain, and on nothing else', async () => {
      const site = await createSite(app);
      expect((await check(app, `key=${site.live}`, 'https://shop.example')).answer).to.include({
        required: true,
        environment: 'LIVE',
      });
      expect((await check(app, `key=${site.live}`, 'https://www.shop.example')).answer).to.include({
        environment: 'LIVE',
      });
      for (const origin of [
        'http://shop.example',
        PAGE,
        'https://evilshop.example',
        'https://shop.example.evil.test',
        undefined,
      ]) {
        expect((await check(app, `key=${site.live}`, origin)).answer, String(origin)).to.include({
          error: 'origin_not_allowed',
        });
      }
    });

    it('refuses an unknown key, a malformed one, a repeated one and a regenerated one', async () => {
      const site = await createSite(app);
      expect((await check(app, 'key=pk_test_unknown', PAGE)).answer).to.include({ error: 'invalid_key' });
      expect((await check(app, 'key=%3Cscript%3E', PAGE)).answer).to.include({ error: 'invalid_key' });
      expect((await check(app, `key=${site.test}&key=${site.test}`, PAGE)).answer).to.include({
        error: 'invalid_request',
      });
      expect((await check(app, '', PAGE)).answer).to.include({ error: 'invalid_request' });
      await regenerateWebsiteKey(app.provider.runtime, site.webmasterId, site.websiteId, 'TEST', TEST_ORIGIN);
      const { response, answer } = await check(app, `key=${site.test}`, PAGE);
      expect(response.status).to.equal(200);
      expect(answer).to.include({ error: 'invalid_key' });
    });
  });

  describe('the origin rule', () => {
    const cases: Array<[string, 'LIVE' | 'TEST', boolean]> = [
      ['https://shop.example', 'LIVE', true],
      ['https://a.b.shop.example', 'LIVE', true],
      ['https://shop.example:8443', 'LIVE', true],
      ['http://shop.example', 'LIVE', false],
      ['http://localhost:3000', 'LIVE', false],
      ['https://notshop.example', 'LIVE', false],
      ['https://shop.example/path', 'LIVE', false],
      ['https://user@shop.example', 'LIVE', false],
      ['null', 'LIVE', false],
      ['http://shop.example', 'TEST', true],
      ['http://localhost:3000', 'TEST', true],
      ['http://127.0.0.1:5500', 'TEST', true],
      ['http://[::1]:8080', 'TEST', true],
      ['https://evil.example', 'TEST', false],
      ['ftp://shop.example', 'TEST', false],
    ];
    for (const [origin, environment, allowed] of cases) {
      it(`${environment} key on ${origin}: ${allowed ? 'allowed' : 'refused'}`, () => {
        expect(isAllowedOrigin(origin, 'shop.example', environment)).to.equal(allowed);
      });
    }
  });

  describe('the verification window (GET /v1/checker/start)', () => {
    it("enters the authorization endpoint as the key's internal client", async () => {
      const site = await createSite(app);
      const response = await fetch(
        `${app.url}/v1/checker/start?${startQuery(site.test, { language: 'fr', challenges: 'ticket,selfie' })}`,
        { redirect: 'manual' },
      );
      expect(response.status).to.equal(303);
      const location = locationOf(response);
      expect(location.pathname).to.equal('/v1/oauth2/checker');
      expect(location.searchParams.get('client_id')).to.equal(`checker_${site.test}`);
      expect(location.searchParams.get('redirect_uri')).to.equal(`${app.url}/v1/checker/callback`);
      expect(location.searchParams.get('language')).to.equal('fr');
      expect(location.searchParams.get('challenges')).to.equal('ticket,selfie');
    });

    const refusals: Array<[string, (site: Site) => string]> = [
      ['an unknown key', () => startQuery('pk_test_unknown')],
      [
        'a foreign origin',
        (site) => startQuery(site.test, { origin: 'https://evil.example', return_to: 'https://evil.example/' }),
      ],
      ['a LIVE key on http', (site) => startQuery(site.live)],
      [
        'redirect without return_to',
        (site) => new URLSearchParams({ key: site.test, origin: PAGE, target: 'redirect' }).toString(),
      ],
      ['return_to on another origin', (site) => startQuery(site.test, { return_to: 'https://evil.example/' })],
      ['return_to that is no URL', (site) => startQuery(site.test, { return_to: 'not a url' })],
      ['an unknown target', (site) => startQuery(site.test, { target: 'iframe' })],
      ['an unknown language', (site) => startQuery(site.test, { language: 'xx' })],
      ['an unknown challenge', (site) => startQuery(site.test, { challenges: 'palm_reading' })],
      ['a repeated key', (site) => `${startQuery(site.test)}&key=${site.test}`],
    ];
    for (const [what, query] of refusals) {
      it(`refuses ${what} with the visitor error page and sends nothing anywhere`, async () => {
        const site = await createSite(app);
        const response = await fetch(`${app.url}/v1/checker/start?${query(site)}`, {
          redirect: 'manual',
          headers: { 'accept-language': 'en' },
        });
        expect(response.status).to.equal(400);
        expect(response.headers.get('content-type')).to.match(/^text\/html/);
        expect(response.headers.get('location')).to.equal(null);
      });
    }
  });

  describe('the result', () => {
    it('target=redirect: the sandbox ends back on the page with a token that verifies against the JWKS', async () => {
      const site = await createSite(app);
      const visitor = new Browser(app.url, { headers: { 'accept-language': 'en' }, stopAt: PAGE });
      const back = returnLink(await walkToResult(visitor, `/v1/checker/start?${startQuery(site.test)}`));
      expect(`${back.origin}${back.pathname}${back.search}`).to.equal(`${PAGE}/shop?item=1`);
      const token = /^#age_provider_token=(.+)$/.exec(back.hash)?.[1];
      expect(token, back.hash).to.be.a('string');
      const { payload, protectedHeader } = await verifyToken(app, token!, site.test);
      expect(protectedHeader.typ).to.equal('age-verification+jwt');
      expect(protectedHeader.kid).to.equal(app.provider.config.jwks.keys[0]!.kid);
      expect(payload).to.include({
        iss: app.url,
        aud: site.test,
        verified: true,
        environment: 'TEST',
        reused: false,
        country_subdivision: null,
      });
      expect(payload.uid).to.match(/^test_/);
      expect(payload.exp).to.equal(payload.expires_at);
      expect(payload.jti).to.be.a('string');
      expect(Object.keys(payload).sort()).to.deep.equal([
        'age_threshold',
        'assurance_level',
        'aud',
        'country',
        'country_subdivision',
        'environment',
        'exp',
        'expires_at',
        'expires_in',
        'iat',
        'iss',
        'jti',
        'policy',
        'reused',
        'uid',
        'verified',
      ]);
      // No preset in force, no rule of the website's own: the token says so.
      expect(payload.policy).to.deep.equal([]);
    });

    it('a visitor who declines comes back with access_denied and no token', async () => {
      const site = await createSite(app);
      const visitor = new Browser(app.url, { headers: { 'accept-language': 'en' }, stopAt: PAGE });
      const start = await visitor.open(`/v1/checker/start?${startQuery(site.test)}`);
      await walkSandbox(visitor, start, PAGE, 'decline').catch(() => undefined);
      expect(returnLink(visitor.html).hash).to.equal('#age_provider_error=access_denied');
    });

    it("the prompt names the page's host the visitor returns to, not this service's", async () => {
      const site = await createSite(app);
      const visitor = new Browser(app.url, { headers: { 'accept-language': 'en' }, stopAt: PAGE });
      const prompt = await visitor.open(`/v1/checker/start?${startQuery(site.test)}`);
      const asking = /<section class="asking"[\s\S]*?<\/section>/
        .exec(prompt.html)?.[0]
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ');
      expect(asking)
        .to.contain(`Afterwards you return to ${new URL(PAGE).host}`)
        .and.not.contain(new URL(app.url).host);
    });

    it('target=popup: the window posts the result to the exact page origin only', async () => {
      const site = await createSite(app);
      const visitor = new Browser(app.url, { headers: { 'accept-language': 'en' }, stopAt: PAGE });
      const query = new URLSearchParams({ key: site.test, origin: PAGE, target: 'popup' }).toString();
      const html = await walkToResult(visitor, `/v1/checker/start?${query}`);
      const holder = /<p id="age-provider-result" data-origin="([^"]+)" data-message="([^"]+)">([^<]*)<\/p>/.exec(html);
      expect(holder?.[1]).to.equal(PAGE);
      const message = JSON.parse(decodeHtml(holder![2]!)) as { type: string; token: string };
      expect(message.type).to.equal('age-provider:result');
      expect((await verifyToken(app, message.token, site.test)).payload.verified).to.equal(true);
      expect(decodeHtml(holder![3]!)).to.equal('Your result has been sent to Night Shop. You can close this window.');
    });

    it('a code is used once, a state must be ours, and a key regenerated meanwhile gets invalid_key', async () => {
      const site = await createSite(app);
      const visitor = new Browser(app.url, { headers: { 'accept-language': 'en' }, stopAt: PAGE });
      expect(returnLink(await walkToResult(visitor, `/v1/checker/start?${startQuery(site.test)}`)).hash).to.match(
        /^#age_provider_token=/,
      );
      const callback = visitor.history.find(({ url }) => url.pathname === '/v1/checker/callback')?.url;
      const replay = await fetch(callback!.href, { headers: { 'accept-language': 'en' } });
      expect(returnLink(await replay.text()).hash).to.equal('#age_provider_error=unavailable');

      const tampered = new URL(callback!.href);
      tampered.searchParams.set('state', `${tampered.searchParams.get('state')!.slice(0, -4)}AAAA`);
      expect((await fetch(tampered.href, { redirect: 'manual' })).status).to.equal(400);
      expect((await fetch(`${app.url}/v1/checker/callback?code=x`, { redirect: 'manual' })).status).to.equal(400);

      const second = new Browser(app.url, { headers: { 'accept-language': 'en' }, stopAt: PAGE });
      const started = await second.open(`/v1/checker/start?${startQuery(site.test)}`);
      await regenerateWebsiteKey(app.provider.runtime, site.webmasterId, site.websiteId, 'TEST', TEST_ORIGIN);
      await walkSandbox(second, started, PAGE).catch(() => undefined);
      // The interaction no longer finds the key's client, or the callback refuses the key: no token either way.
      expect(second.html).not.to.include('age_provider_token');
    });
  });
});

describe('the checker surface limits strangers per address', () => {
  const app = useApp({ env: { CHECKER_RATE_LIMIT_PER_IP: '3' } });

  it('the check, the start and the callback share one per-IP limit; the script itself is not limited', async () => {
    const paths = [
      '/v1/checker/requirement.js?key=pk_test_a',
      '/v1/checker/start?key=pk_test_a',
      '/v1/checker/callback?state=x',
    ];
    for (const path of paths)
      expect((await fetch(`${app.url}${path}`, { redirect: 'manual' })).status).to.not.equal(429);
    const limited = await fetch(`${app.url}${paths[0]}`);
    expect(limited.status).to.equal(429);
    expect(Number(limited.headers.get('retry-after'))).to.be.above(0);
    expect((await fetch(`${app.url}/v1/checker.js`)).status).to.equal(200);
  });

  it('refuses to start with a CHECKER_RATE_LIMIT_PER_IP that is not a count', async () => {
    const error = await startTestApp({ env: { CHECKER_RATE_LIMIT_PER_IP: 'lots' } }).then(
      async (started) => {
        await started.close();
        return undefined;
      },
      (caught: unknown) => caught,
    );
    expect((error as Error).message).to.contain('CHECKER_RATE_LIMIT_PER_IP');
  });
});

describe('GET /v1/oauth2/resources with Accept: application/jwt', () => {
  const harness = useOAuth2App();

  it('answers the signed token addressed to the client; JSON stays the default answer', async () => {
    const client = await harness.client();
    const { access_token: accessToken } = await issueToken(harness.app, client);
    const json = await readResources(harness.app, accessToken);
    expect(json.headers.get('content-type')).to.match(/^application\/json/);
    const { resources } = (await json.json()) as { resources: Record<string, unknown> };

    const response = await fetch(`${harness.app.url}/v1/oauth2/resources`, {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/jwt' },
    });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('application/jwt');
    expect(response.headers.get('cache-control')).to.equal('no-store');
    const token = await response.text();
    expect(decodeProtectedHeader(token).typ).to.equal('age-verification+jwt');
    const { payload } = await verifyToken(harness.app, token, client.clientId);
    expect(payload).to.include({
      uid: resources.uid,
      verified: true,
      environment: 'TEST',
      expires_at: resources.expires_at,
      country: 'DE',
    });

    const expired = await fetch(`${harness.app.url}/v1/oauth2/resources`, {
      headers: { authorization: 'Bearer nope', accept: 'application/jwt' },
    });
    expect(expired.status).to.equal(401);
  });
});
