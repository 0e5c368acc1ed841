import { expect } from 'chai';
import type { WebsitePolicy } from '../../lib/websites/index.js';
import { useApp } from '../helpers/app.js';
import { createClientFixture, createWebmasterFixture, type WebmasterFixture } from '../helpers/fixtures.js';
import { apiClient, expectError, snapshot, type ApiClient } from './api.js';

// PUT and GET /external/website/{website_id}/policy: a website's own rules, which may only tighten the operator's presets.

const FR_RULE = {
  regions: ['FR'],
  required: true,
  ageThreshold: 18,
  challenges: ['eu_av', 'ticket'],
  minimumAssuranceLevel: 'ENHANCED',
  estimationBuffer: 5,
  reuseMaxAgeSeconds: 3600,
  requireDoubleAnonymity: true,
  challengesUntil: { credit_card: '2026-12-31' },
};

describe('External API: the website policy', () => {
  const app = useApp({ env: { POLICY_PRESETS: 'fr,us-ms', AGE_THRESHOLDS: '{"JP":20}' } });
  let webmaster: WebmasterFixture;
  let api: ApiClient;
  let websiteId: number;
  const path = () => `/website/${websiteId}/policy`;

  beforeEach(async () => {
    webmaster = await createWebmasterFixture(app.provider.runtime);
    api = apiClient(app.url, webmaster.apiToken);
    ({ websiteId } = await createClientFixture(app.provider.runtime, webmaster.id, { regions: ['DE'] }));
  });

  it('shows no own rules, the presets in force, and the rule in force in every region named anywhere', async () => {
    const { status, body } = await api.get<WebsitePolicy>(path());
    expect(status).to.equal(200);
    expect(body.rules).to.deep.equal([]);
    expect(body.presets).to.deep.equal([
      { id: 'fr', version: '1', title: 'France: SREN law and the Arcom reference framework (délibération 2024-20)' },
      { id: 'us-ms', version: '1', title: 'Mississippi: SB 2346' },
    ]);
    expect(Object.keys(body.effective)).to.deep.equal(['*', 'DE', 'FR', 'GF', 'GP', 'JP', 'MQ', 'RE', 'US-MS', 'YT']);
    // The spec's regions: required in DE only (and wherever nobody can tell where the visitor is).
    expect(body.effective.DE).to.include({ required: true, ageThreshold: 18, requireDoubleAnonymity: false });
    expect(body.effective.FR).to.include({
      required: false,
      ageThreshold: 18,
      requireDoubleAnonymity: true,
      reuseMaxAgeSeconds: 3600,
    });
    expect(body.effective.FR!.origins).to.deep.equal([{ kind: 'preset', preset: 'fr', version: '1', rule: 0 }]);
    expect(body.effective['US-MS']).to.include({ ageThreshold: 21 });
    expect(body.effective.JP).to.include({ ageThreshold: 20 });
    expect(body.effective['*']).to.include({ required: true, ageThreshold: 18 });
  });

  it("replaces the website's rules with tighter ones (the documented example) and answers what is now in force", async () => {
    const { status, body } = await api.put<WebsitePolicy>(path(), {
      rules: [FR_RULE, { regions: ['US-TX'], required: true, ageThreshold: 21 }],
    });
    expect(status, JSON.stringify(body)).to.equal(200);
    expect(body.rules).to.deep.equal([FR_RULE, { regions: ['US-TX'], required: true, ageThreshold: 21 }]);
    expect(body.effective.FR).to.deep.equal({
      required: true,
      ageThreshold: 18,
      challenges: ['eu_av', 'ticket'],
      minimumAssuranceLevel: 'ENHANCED',
      estimationBuffer: 5,
      reuseMaxAgeSeconds: 3600,
      requireDoubleAnonymity: true,
      challengesUntil: { credit_card: '2025-01-09' },
      origins: [
        { kind: 'preset', preset: 'fr', version: '1', rule: 0 },
        { kind: 'website', rule: 0 },
      ],
    });
    expect(body.effective['US-TX']).to.include({ required: true, ageThreshold: 21 });
    expect((await api.get<WebsitePolicy>(path())).body).to.deep.equal(body);
    // The spec's Website is unchanged by a policy.
    const website = await api.get<Record<string, unknown>>(`/website/${websiteId}`);
    expect(website.body).to.have.all.keys('id', 'name', 'domain', 'language', 'regions', 'challenges', 'keys');
    expect(website.body.regions).to.deep.equal(['DE']);

    const cleared = await api.put<WebsitePolicy>(path(), { rules: [] });
    expect(cleared.body.rules).to.deep.equal([]);
    expect(cleared.body.effective['US-TX']).to.equal(undefined);
  });

  const loosening: Array<[string, unknown, string]> = [
    ['a lower age than a state preset', { regions: ['US-MS'], ageThreshold: 18 }, 'rules[0].ageThreshold'],
    ["a lower age than the operator's for a country", { regions: ['JP'], ageThreshold: 19 }, 'rules[0].ageThreshold'],
    ['a longer reuse than France allows', { regions: ['FR'], reuseMaxAgeSeconds: 7200 }, 'rules[0].reuseMaxAgeSeconds'],
    [
      'no double anonymity where France requires it',
      { regions: ['GP'], requireDoubleAnonymity: false },
      'rules[0].requireDoubleAnonymity',
    ],
    [
      'a later end for the payment card',
      { regions: ['FR'], challengesUntil: { credit_card: '2030-01-01' } },
      'rules[0].challengesUntil.credit_card',
    ],
  ];
  for (const [name, rule, field] of loosening) {
    it(`refuses ${name} with a 400 naming ${field}, storing nothing`, async () => {
      await api.put(path(), { rules: [{ regions: ['DE'], ageThreshold: 19 }] });
      const before = await snapshot(app.database.db);
      const message = expectError(await api.put(path(), { rules: [{ regions: ['DE'], ageThreshold: 21 }, rule] }), 400);
      expect(message)
        .to.contain(`Invalid ${field.replace('rules[0]', 'rules[1]')}.`)
        .and.contain('may only tighten');
      expect(await snapshot(app.database.db)).to.equal(before);
      expect((await api.get<WebsitePolicy>(path())).body.rules).to.deep.equal([{ regions: ['DE'], ageThreshold: 19 }]);
    });
  }

  it("accepts a country-wide rule below a state preset: the state's preset still applies on top of it", async () => {
    const { status, body } = await api.put<WebsitePolicy>(path(), {
      rules: [{ regions: ['US'], ageThreshold: 18, required: true }],
    });
    expect(status).to.equal(200);
    expect(body.effective.US).to.include({ ageThreshold: 18 });
    expect(body.effective['US-MS']).to.include({ ageThreshold: 21, required: true });
  });

  it('refuses a rule that would change nothing, explaining why, and accepts one that sets a broader rule aside', async () => {
    const before = await snapshot(app.database.db);
    for (const idle of [
      { regions: ['DE'] },
      { regions: ['DE'], required: false },
      { regions: ['*'], challengesUntil: {} },
    ]) {
      const message = expectError(await api.put(path(), { rules: [{ regions: ['FR'], ageThreshold: 21 }, idle] }), 400);
      expect(message, JSON.stringify(idle))
        .to.contain('Invalid rules[1]: it demands nothing')
        .and.contain('required: false never lifts a requirement');
    }
    expect(await snapshot(app.database.db)).to.equal(before);
    // Under a rule for every region, a country's rule of its own is an exception: there, the broader one does not apply.
    const { status, body } = await api.put<WebsitePolicy>(path(), {
      rules: [{ regions: ['*'], ageThreshold: 21 }, { regions: ['DE'] }],
    });
    expect(status, JSON.stringify(body)).to.equal(200);
    expect(body.effective.DE).to.include({ ageThreshold: 18 });
    expect(body.effective['*']).to.include({ ageThreshold: 21 });
  });

  it('refuses malformed rules with the field named, storing nothing', async () => {
    const before = await snapshot(app.database.db);
    expect(
      expectError(await api.put(path(), { rules: [{ regions: ['FR'], ageThreshold: 'eighteen' }] }), 400),
    ).to.contain('rules[0].ageThreshold');
    expect(expectError(await api.put(path(), { rules: [{ regions: ['fr'] }] }), 400)).to.contain('rules[0].regions[0]');
    expect(expectError(await api.put(path(), {}), 400)).to.contain('"rules"');
    expect(expectError(await api.put(path(), { rules: [{ regions: ['FR'] }], extra: 1 }), 400)).to.contain('"extra"');
    expect(await snapshot(app.database.db)).to.equal(before);
  });
});
