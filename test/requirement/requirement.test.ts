import { expect } from 'chai';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { ConfigError } from '../../lib/config/settings.js';
import { regenerateWebsiteKey } from '../../lib/websites/index.js';
import { startTestApp, useApp } from '../helpers/app.js';
import { createWebsiteWithKeys, fetchRequirement, type WebsiteKeys } from './website-keys.js';
import { TEST_ORIGIN } from '../helpers/fixtures.js';

// GET /v1/requirement?key=<public key>: whether a website must verify the caller.

const at = (country: string, subdivision?: string): Record<string, string> =>
  subdivision ? { 'CF-IPCountry': country, 'X-Region': subdivision } : { 'CF-IPCountry': country };

describe('the public requirement endpoint', () => {
  const app = useApp({ trustProxy: true, geo: { countryHeader: 'CF-IPCountry', subdivisionHeader: 'X-Region' } });

  describe('which visitors a website must verify', () => {
    const cases: Array<[string[], Record<string, string>, boolean]> = [
      [[], at('DE'), true],
      [[], {}, true],
      [['DE', 'FR'], at('FR'), true],
      [['DE', 'FR'], at('DE', 'BY'), true],
      [['DE', 'FR'], at('IT'), false],
      [['US'], at('US', 'TX'), true],
      [['US'], at('US'), true],
      [['US'], at('CA', 'QC'), false],
      [['US-TX'], at('US', 'TX'), true],
      [['US-TX'], at('US', 'CA'), false],
      [['US-TX', 'US-UT'], at('US', 'UT'), true],
      [['US-TX'], at('DE'), false],
      // fail closed: we cannot tell the visitor is outside the listed regions
      [['US-TX'], at('US'), true],
      [['DE'], {}, true],
      [['DE'], at('XX'), true],
    ];
    for (const [regions, headers, required] of cases) {
      const where = headers['CF-IPCountry']
        ? [headers['CF-IPCountry'], headers['X-Region']].filter(Boolean).join('/')
        : 'unknown';
      it(`regions ${JSON.stringify(regions)}, visitor in ${where}: required=${String(required)}`, async () => {
        const website = await createWebsiteWithKeys(app, regions);
        for (const key of [website.live, website.test]) {
          const { response, body } = await fetchRequirement(app, key, headers);
          expect(response.status).to.equal(200);
          expect(body.required).to.equal(required);
        }
      });
    }
  });

  describe('the answer', () => {
    let website: WebsiteKeys;
    before(async () => {
      website = await createWebsiteWithKeys(app, ['US-TX']);
    });

    it('has exactly required, country, country_subdivision, age_threshold, the challenges offered there and the minimum level', async () => {
      const { response, body } = await fetchRequirement(app, website.live, at('US', 'TX'));
      expect(response.headers.get('content-type')).to.match(/^application\/json/);
      // LIVE: only the challenges the operator runs (here the built-in ticket).
      expect(body).to.deep.equal({
        required: true,
        country: 'US',
        country_subdivision: 'US-TX',
        age_threshold: 18,
        challenges: ['ticket'],
        minimum_assurance_level: 'STANDARD',
      });
    });

    it('is readable by any origin, without credentials', async () => {
      const { response } = await fetchRequirement(app, website.live, {
        ...at('US', 'TX'),
        Origin: 'https://shop.example',
      });
      expect(response.headers.get('access-control-allow-origin')).to.equal('*');
      expect(response.headers.get('access-control-allow-credentials')).to.equal(null);
    });

    it('is cached privately for a minute and varies with the geo headers', async () => {
      const { response } = await fetchRequirement(app, website.live, at('US', 'TX'));
      expect(response.headers.get('cache-control')).to.equal('private, max-age=60');
      expect(response.headers.get('vary')).to.equal('CF-IPCountry, X-Region, Accept');
    });

    it("answers a signed JWT with Accept: application/jwt, for the website's server, never cached", async () => {
      const response = await fetch(`${app.url}/v1/requirement?key=${website.test}`, {
        headers: { ...at('DE'), Accept: 'application/jwt' },
      });
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^application\/jwt/);
      expect(response.headers.get('cache-control')).to.equal('no-store');
      expect(response.headers.get('access-control-allow-origin')).to.equal('*');
      const jwks = createLocalJWKSet((await (await fetch(`${app.url}/v1/oauth2/jwks`)).json()) as JSONWebKeySet);
      const { payload, protectedHeader } = await jwtVerify(await response.text(), jwks, {
        issuer: app.url,
        audience: website.test,
        typ: 'age-requirement+jwt',
      });
      expect(protectedHeader.alg).to.equal('RS256');
      expect(payload).to.include({
        required: false,
        country: 'DE',
        country_subdivision: null,
        age_threshold: 18,
        environment: 'TEST',
      });
      expect(payload).not.to.have.property('verified');
      expect(payload.exp! - payload.iat!).to.equal(600);
    });

    it('answers a CORS preflight', async () => {
      const response = await fetch(`${app.url}/v1/requirement?key=${website.live}`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://shop.example', 'Access-Control-Request-Method': 'GET' },
      });
      expect(response.status).to.equal(204);
      expect(response.headers.get('access-control-allow-origin')).to.equal('*');
      expect(response.headers.get('access-control-allow-methods')).to.equal('GET');
    });
  });

  describe('keys', () => {
    it('answers 404 not_found for an unknown key, readable cross-origin and not cached', async () => {
      const response = await fetch(`${app.url}/v1/requirement?key=pk_live_doesnotexist`);
      expect(response.status).to.equal(404);
      expect(response.headers.get('access-control-allow-origin')).to.equal('*');
      expect(response.headers.get('cache-control')).to.equal('no-store');
      expect(await response.json()).to.deep.equal({
        error: 'not_found',
        error_description: 'no website has this public key',
      });
    });

    for (const [name, query] of [
      ['a malformed key', '?key=%27%20OR%201%3D1--'],
      ['an over-long key', `?key=${'a'.repeat(300)}`],
    ]) {
      it(`answers 404 not_found for ${name}`, async () => {
        const response = await fetch(`${app.url}/v1/requirement${query}`);
        expect(response.status).to.equal(404);
        expect(((await response.json()) as { error: string }).error).to.equal('not_found');
      });
    }

    for (const [name, query] of [
      ['no key', ''],
      ['an empty key', '?key='],
      ['two keys', '?key=a&key=b'],
    ]) {
      it(`answers 400 invalid_request for ${name}`, async () => {
        const response = await fetch(`${app.url}/v1/requirement${query}`);
        expect(response.status).to.equal(400);
        expect(response.headers.get('content-type')).to.match(/^application\/json/);
        const body = (await response.json()) as { error: string; error_description: string };
        expect(body.error).to.equal('invalid_request');
        expect(body.error_description).to.be.a('string').and.not.equal('');
      });
    }

    it('forgets a regenerated key at once and knows the new one', async () => {
      const website = await createWebsiteWithKeys(app, ['FR']);
      expect((await fetchRequirement(app, website.live, at('FR'))).response.status).to.equal(200);
      const { publicKey } = await regenerateWebsiteKey(
        app.provider.runtime,
        website.webmasterId,
        website.websiteId,
        'LIVE',
        TEST_ORIGIN,
      );
      expect((await fetchRequirement(app, website.live, at('FR'))).response.status).to.equal(404);
      const fresh = await fetchRequirement(app, publicKey, at('FR'));
      expect(fresh.response.status).to.equal(200);
      expect(fresh.body.required).to.equal(true);
      expect((await fetchRequirement(app, website.test, at('FR'))).response.status).to.equal(200);
    });
  });

  describe('simulated locations (TEST keys only)', () => {
    let website: WebsiteKeys;
    before(async () => {
      website = await createWebsiteWithKeys(app, ['US-TX']);
    });

    it('answers for test_country and test_subdivision with a TEST key', async () => {
      const inTexas = await fetchRequirement(app, website.test, at('DE'), '&test_country=US&test_subdivision=TX');
      expect(inTexas.body).to.deep.equal({
        required: true,
        country: 'US',
        country_subdivision: 'US-TX',
        age_threshold: 18,
        challenges: ['selfie', 'email_age', 'ticket'],
        minimum_assurance_level: 'STANDARD',
      });
      const inUtah = await fetchRequirement(
        app,
        website.test,
        at('US', 'TX'),
        '&test_country=us&test_subdivision=US-UT',
      );
      expect(inUtah.body).to.include({ required: false, country: 'US', country_subdivision: 'US-UT' });
    });

    it('refuses them with a LIVE key', async () => {
      const response = await fetch(`${app.url}/v1/requirement?key=${website.live}&test_country=US`);
      expect(response.status).to.equal(400);
      expect(((await response.json()) as { error: string }).error).to.equal('invalid_request');
    });

    for (const query of [
      '&test_country=QQ',
      '&test_subdivision=TX',
      '&test_country=US&test_subdivision=ZZ',
      '&test_country=US&test_subdivision=DE-BY',
    ]) {
      it(`refuses ${query.slice(1)}`, async () => {
        const response = await fetch(`${app.url}/v1/requirement?key=${website.test}${query}`);
        expect(response.status).to.equal(400);
        expect(((await response.json()) as { error: string }).error).to.equal('invalid_request');
      });
    }
  });

  describe('rate limit', () => {
    it('answers 429 too_many_requests with Retry-After once an address spends its 300 requests a minute', async () => {
      const other = await startTestApp();
      try {
        const { live } = await createWebsiteWithKeys(other, []);
        const statuses: number[] = [];
        for (let batch = 0; batch < 6; batch += 1) {
          const responses = await Promise.all(
            Array.from({ length: 50 }, () => fetch(`${other.url}/v1/requirement?key=${live}`)),
          );
          statuses.push(...responses.map((response) => response.status));
          await Promise.all(responses.map((response) => response.arrayBuffer()));
        }
        expect(statuses.filter((status) => status === 200)).to.have.length(300);
        const response = await fetch(`${other.url}/v1/requirement?key=${live}`);
        expect(response.status).to.equal(429);
        expect(Number(response.headers.get('retry-after'))).to.be.greaterThan(0);
        expect(response.headers.get('access-control-allow-origin')).to.equal('*');
        expect(((await response.json()) as { error: string }).error).to.equal('too_many_requests');
      } finally {
        await other.close();
      }
    });

    it('follows REQUIREMENT_RATE_LIMIT_PER_IP', async () => {
      const other = await startTestApp({ env: { REQUIREMENT_RATE_LIMIT_PER_IP: '3' } });
      try {
        const { live } = await createWebsiteWithKeys(other, []);
        const statuses: number[] = [];
        for (let request = 0; request < 4; request += 1)
          statuses.push((await fetchRequirement(other, live)).response.status);
        expect(statuses).to.deep.equal([200, 200, 200, 429]);
      } finally {
        await other.close();
      }
    });

    it('refuses to start with a REQUIREMENT_RATE_LIMIT_PER_IP that is not a count', async () => {
      const error = await startTestApp({ env: { REQUIREMENT_RATE_LIMIT_PER_IP: 'lots' } }).then(
        async (started) => {
          await started.close();
          return undefined;
        },
        (failure: unknown) => failure,
      );
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as Error).message).to.contain('REQUIREMENT_RATE_LIMIT_PER_IP');
    });
  });
});
