import { expect } from 'chai';
import fc from 'fast-check';
import { LANGUAGE_CHOICES } from '../../lib/i18n/languages.js';
import { CHALLENGE_NAMES } from '../../lib/verification/challenge.js';
import type { Website } from '../../lib/websites/index.js';
import { REGION_CODES } from '../../lib/geo/region-codes.js';
import { useApp } from '../helpers/app.js';
import { createWebmasterFixture } from '../helpers/fixtures.js';
import { apiClient, request, snapshot, type ApiResponse } from './api.js';

const RUNS = 60;

/** Strings that are often almost right, sometimes anything at all (any code point, lone surrogates included). */
const anyString = fc.oneof(fc.string(), fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('', ' ', '\u0000', 'null', 'A'.repeat(101)));
const almost = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: anyString }, { weight: 1, arbitrary: fc.jsonValue() });
const listOf = <T>(item: fc.Arbitrary<T>) => fc.oneof(fc.array(almost(item), { maxLength: 25 }), fc.jsonValue());

const name = almost(fc.string({ minLength: 1, maxLength: 100 }));
const domain = almost(fc.domain());
const language = almost(fc.constantFrom(...LANGUAGE_CHOICES));
const challenges = listOf(fc.constantFrom(...CHALLENGE_NAMES));
const regions = listOf(fc.constantFrom(...REGION_CODES, 'US-XX', 'de', 'EU'));
const redirectUris = listOf(fc.oneof(fc.webUrl({ withFragments: true, withQueryParameters: true }), fc.constantFrom('http://localhost:3000/cb', 'https://user@example.com/')));
const status = almost(fc.constantFrom('ACTIVE', 'DISABLED', 'active'));
/** A website's policy rule, almost valid: regions any loosening of the presets in force names, values around the limits. */
const policyRule = fc.record({
  regions: listOf(fc.constantFrom('*', 'FR', 'US-MS', 'US', 'fr', 'US-XX', 'EU')),
  required: almost(fc.boolean()),
  ageThreshold: almost(fc.integer({ min: 10, max: 30 })),
  challenges,
  minimumAssuranceLevel: almost(fc.constantFrom('STANDARD', 'ENHANCED', 'STRICT')),
  estimationBuffer: almost(fc.integer({ min: -1, max: 12 })),
  reuseMaxAgeSeconds: almost(fc.integer({ min: -1, max: 40_000_000 })),
  requireDoubleAnonymity: almost(fc.boolean()),
  challengesUntil: almost(fc.dictionary(fc.constantFrom(...CHALLENGE_NAMES, 'x'), almost(fc.constantFrom('2024-12-31', '2030-01-01', '2026-02-30')), { maxKeys: 3 })),
}, { requiredKeys: [] });
const extra = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 });

/** A body: mostly objects built from almost-valid fields (with unknown keys now and then), else any JSON value. */
const bodyOf = (fields: Record<string, fc.Arbitrary<unknown>>) => fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.record(fields, { requiredKeys: [] }), fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: extra }))
    .map(([known, unknown]) => ({ ...unknown, ...known })) },
  { weight: 1, arbitrary: fc.jsonValue() },
);

describe('External API: property-based fuzz of the write endpoints', function () {
  this.timeout(240_000);
  // Presets in force, so the policy's refusals of loosening rules are fuzzed too.
  const app = useApp({ env: { EXTERNAL_API_RATE_LIMIT_PER_TOKEN: '100000', EXTERNAL_API_RATE_LIMIT_PER_IP: '100000', POLICY_PRESETS: 'fr,us-ms' } });
  let token: string;
  let websiteId: number;

  before(async () => {
    token = (await createWebmasterFixture(app.provider.runtime)).apiToken;
    const api = apiClient(app.url, token);
    websiteId = (await api.post<Website>('/website', { name: 'Fuzz', domain: 'fuzz.example.com' })).body.id;
    await api.post(`/website/${websiteId}/oauth2/live`, { redirectUris: ['https://fuzz.example.com/cb'] });
  });

  /** Never a 5xx; a rejection is the error shape and leaves every table as it was. */
  async function checkWrite(send: () => Promise<ApiResponse>): Promise<void> {
    const before = await snapshot(app.database.db);
    const response = await send();
    expect(response.status, JSON.stringify(response.body)).to.be.below(500);
    if (response.status !== 200) {
      expect(response.body).to.have.all.keys('message', 'error', 'statusCode');
      expect(await snapshot(app.database.db), `changed by a ${response.status}`).to.equal(before);
    }
  }

  const property = (path: () => string, method: string, body: fc.Arbitrary<unknown>) => fc.assert(
    fc.asyncProperty(body, async (json) => checkWrite(() => request(app.url, method, `/external${path()}`, { token, json }))),
    { numRuns: RUNS },
  );

  it('POST /website', () => property(() => '/website', 'POST', bodyOf({ name, domain, language, challenges, regions })));

  it('PATCH /website/{website_id}', () => property(() => `/website/${websiteId}`, 'PATCH', bodyOf({ name, domain, language, challenges, regions })));

  it('POST /website/{website_id}/oauth2/{environment}', () => property(() => `/website/${websiteId}/oauth2/test`, 'POST', bodyOf({ redirectUris })));

  it('PATCH /website/{website_id}/oauth2/{environment}', () => property(() => `/website/${websiteId}/oauth2/live`, 'PATCH', bodyOf({ redirectUris, status })));

  it('PUT /website/{website_id}/policy', () => property(() => `/website/${websiteId}/policy`, 'PUT', bodyOf({ rules: listOf(policyRule) })));

  it('raw bodies of any text and content type', () => fc.assert(
    fc.asyncProperty(
      fc.constantFrom(
        ['POST', '/website'], ['PATCH', `/website/${websiteId}`], ['POST', `/website/${websiteId}/oauth2/test`], ['PATCH', `/website/${websiteId}/oauth2/live`],
        ['PUT', `/website/${websiteId}/policy`],
      ),
      fc.oneof(fc.string({ unit: 'binary' }), fc.json()),
      fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16'),
      async ([method, path], raw, contentType) => checkWrite(() => request(app.url, method, `/external${path}`, { token, raw, headers: { 'Content-Type': contentType } })),
    ),
    { numRuns: RUNS },
  ));

  it('any path parameters on every write, including the regenerations', () => fc.assert(
    fc.asyncProperty(
      fc.oneof(fc.string(), fc.nat().map(String), fc.constant(String(websiteId))),
      fc.oneof(fc.constantFrom('live', 'test', 'LIVE'), fc.string()),
      fc.constantFrom('', '/key/{env}/regenerate', '/oauth2/{env}', '/oauth2/{env}/regenerate'),
      async (id, environment, suffix) => {
        const path = `/website/${encodeURIComponent(id)}${suffix.replace('{env}', encodeURIComponent(environment))}`;
        const json = suffix === '' ? { name: 'Renamed' } : suffix === '/oauth2/{env}' ? { status: 'ACTIVE' } : undefined;
        await checkWrite(() => request(app.url, 'PATCH', `/external${path}`, { token, ...(json ? { json } : {}) }));
      },
    ),
    { numRuns: RUNS },
  ));
});
