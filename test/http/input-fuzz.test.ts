import { expect } from 'chai';
import fc from 'fast-check';
import { createWebmasterFixture } from '../helpers/fixtures.js';
import { authorizationUrl, startOAuth2App, type OAuth2TestApp } from '../oauth2/helpers/oauth2.js';

const RUNS = 250;

const hex = (byte: number) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`;

/** Percent-encoded values a stranger can send: control characters among text, arbitrary bytes (invalid UTF-8), long runs. */
const encodedValue = fc.oneof(
  fc.array(fc.oneof(fc.integer({ min: 0, max: 0x1f }), fc.integer({ min: 0x7f, max: 0x9f }), fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0x10ffff })), { maxLength: 20 })
    .map((codes) => encodeURIComponent(String.fromCodePoint(...codes.filter((code) => code < 0xd800 || code > 0xdfff)))),
  fc.uint8Array({ maxLength: 16 }).map((bytes) => [...bytes].map(hex).join('')),
  fc.constantFrom('%00', '%', '%zz', '%C3%28', '%ED%A0%80', 'a%00b', '%0D%0A'),
  fc.integer({ min: 1000, max: 9000 }).map((length) => 'x'.repeat(length)),
);

type Send = (app: { url: string; query: string; apiToken: string }, value: string) => Promise<Response>;

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const post = (url: string, body: string, headers: Record<string, string> = {}) => fetch(url, { method: 'POST', headers: { ...FORM, ...headers }, body, redirect: 'manual' });
const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers, redirect: 'manual' });
/** The decoded text of a value when it has one (JSON bodies carry text, not percent-encoding). */
const decoded = (value: string) => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

/** Every surface, each place a stranger's value goes: query parameters, form fields, JSON strings, path segments, Basic credentials. */
const ENDPOINTS: Record<string, Send> = {
  ...Object.fromEntries(['client_id', 'redirect_uri', 'state', 'nonce', 'login_hint', 'ui_locales', 'language', 'challenges', 'scope', 'response_type'].map((name) => [
    `authorization ${name}`, (({ url, query }, value) => get(`${url}/v1/oauth2/checker?${query}&${name}=${value}`)) as Send,
  ])),
  'legacy login entry': ({ url, query }, value) => get(`${url}/api/oauth2/login?${query}&state=${value}`),
  'resume path': ({ url }, value) => get(`${url}/v1/oauth2/checker/${value}`),
  ...Object.fromEntries(['client_id', 'client_secret', 'code', 'redirect_uri', 'grant_type', 'code_verifier'].map((name) => [
    `token ${name}`, (({ url }, value) => post(`${url}/v1/oauth2/token`, `grant_type=authorization_code&code=c&redirect_uri=r&client_id=i&client_secret=s&${name}=${value}`)) as Send,
  ])),
  'token Basic credentials': ({ url }, value) => post(`${url}/v1/oauth2/token`, 'grant_type=authorization_code&code=c&redirect_uri=r', {
    authorization: `Basic ${Buffer.from(`${value}:secret`).toString('base64')}`,
  }),
  'introspection client_id': ({ url }, value) => post(`${url}/v1/oauth2/token/introspection`, `token=t&client_id=${value}&client_secret=s`),
  'introspection token': ({ url }, value) => post(`${url}/v1/oauth2/token/introspection`, `token=${value}&client_id=i&client_secret=s`),
  'revocation token': ({ url }, value) => post(`${url}/v1/oauth2/token/revocation`, `token=${value}&client_id=i&client_secret=s`),
  'resources query': ({ url }, value) => get(`${url}/v1/oauth2/resources?x=${value}`),
  'resources bearer': ({ url }, value) => get(`${url}/api/oauth2/resources`, { authorization: `Bearer ${value.replace(/%/g, '')}x` }),
  'interaction path': ({ url }, value) => get(`${url}/v1/oauth2/interaction/${value}`),
  'interaction sign-in form': ({ url }, value) => post(`${url}/v1/oauth2/interaction/abc/sign-in`, `username=${value}&password=${value}&_csrf=x`),
  'interaction result save form': ({ url }, value) => post(`${url}/v1/oauth2/interaction/abc/result/save`, `username=${value}&_csrf=${value}`),
  'platform sign-in form': ({ url }, value) => post(`${url}/platform/signin`, `email=${value}&password=${value}&_csrf=${value}`),
  'platform register form': ({ url }, value) => post(`${url}/platform/register`, `email=${value}&password=p&confirm=p`),
  'platform query': ({ url }, value) => get(`${url}/platform/signin?next=${value}`),
  'platform website path': ({ url }, value) => get(`${url}/platform/websites/${value}`),
  'external path': ({ url, apiToken }, value) => get(`${url}/external/website/${value}`, { authorization: `Bearer ${apiToken}` }),
  'external query': ({ url, apiToken }, value) => get(`${url}/external/website?x=${value}`, { authorization: `Bearer ${apiToken}` }),
  'external JSON': ({ url, apiToken }, value) => fetch(`${url}/external/website`, {
    method: 'POST', headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: decoded(value), domain: `${decoded(value)}.example` }),
  }),
  'external raw JSON bytes': ({ url, apiToken }, value) => fetch(`${url}/external/website`, {
    method: 'POST', headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
    body: Buffer.concat([Buffer.from('{"name":"'), Buffer.from(value.replace(/%([0-9A-F]{2})/gi, (_all, byte: string) => String.fromCharCode(parseInt(byte, 16))), 'latin1'), Buffer.from('","domain":"a.example"}')]),
  }),
  'requirement key': ({ url }, value) => get(`${url}/v1/requirement?key=${value}`),
  'any path': ({ url }, value) => get(`${url}/${value}`),
};

describe('fuzz: control characters, invalid UTF-8 and oversized values on every endpoint of every surface', function () {
  this.timeout(600_000);
  let harness: OAuth2TestApp;
  let target: { url: string; query: string; apiToken: string };
  before(async () => {
    // Limits high enough that the fuzz reaches the handlers (a 429 would also be below 500, but proves less).
    harness = await startOAuth2App({
      EXTERNAL_API_RATE_LIMIT_PER_TOKEN: '100000', EXTERNAL_API_RATE_LIMIT_PER_IP: '100000', OAUTH2_RATE_LIMIT_PER_IP: '100000',
    });
    const client = await harness.client();
    target = { url: harness.app.url, query: authorizationUrl('', client, 'checker', { state: undefined }).split('?')[1]!, apiToken: (await createWebmasterFixture(harness.app.provider.runtime)).apiToken };
  });
  after(() => harness.app.close());

  it('never answers 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(ENDPOINTS)), encodedValue, async (endpoint, value) => {
        const response = await ENDPOINTS[endpoint]!(target, value);
        await response.arrayBuffer();
        expect(response.status, `${endpoint} with ${value.slice(0, 80)}`).to.be.below(500);
      }),
      { numRuns: RUNS },
    );
  });

  it('sends every NUL straight to each endpoint once', async () => {
    // A header value cannot carry a NUL at all (HTTP parsers refuse it): the bearer token is fuzzed above only.
    for (const [endpoint, send] of Object.entries(ENDPOINTS).filter(([name]) => name !== 'resources bearer')) {
      const response = await send(target, 'a%00b');
      await response.arrayBuffer();
      expect(response.status, endpoint).to.equal(400);
    }
  });
});
