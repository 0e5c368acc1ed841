import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createWebsiteWithKeys, fetchRequirement } from '../requirement/website-keys.js';

// The age a visitor must prove where they are, as the requirement endpoint reports it (age_threshold).

describe('age threshold per region', () => {
  let app: TestApp;
  let key: string;
  before(async () => {
    app = await startTestApp({
      trustProxy: true,
      env: { AGE_THRESHOLDS: '{"US-AL":19,"US-MS":21,"JP":20,"CA":19,"CA-QC":18}' },
      geo: { countryHeader: 'CF-IPCountry', subdivisionHeader: 'X-Region' },
    });
    key = (await createWebsiteWithKeys(app, [])).live;
  });
  after(() => app.close());

  const cases: Array<[string, Record<string, string>, number]> = [
    ['a configured US state', { 'CF-IPCountry': 'US', 'X-Region': 'AL' }, 19],
    ['another configured US state', { 'CF-IPCountry': 'US', 'X-Region': 'US-MS' }, 21],
    ['an unconfigured US state (the default)', { 'CF-IPCountry': 'US', 'X-Region': 'TX' }, 18],
    ['a configured country', { 'CF-IPCountry': 'JP' }, 20],
    ['a configured country, in any of its subdivisions', { 'CF-IPCountry': 'CA', 'X-Region': 'ON' }, 19],
    ['a subdivision that beats its country', { 'CF-IPCountry': 'CA', 'X-Region': 'QC' }, 18],
    ['an unconfigured country (the default)', { 'CF-IPCountry': 'DE' }, 18],
    ['an unknown location (the default)', {}, 18],
  ];
  for (const [name, headers, threshold] of cases) {
    it(`is ${threshold} for ${name}`, async () => {
      const { body } = await fetchRequirement(app, key, headers);
      expect(body.age_threshold).to.equal(threshold);
    });
  }

  it('follows AGE_THRESHOLD where no region is configured', async () => {
    const other = await startTestApp({
      ageThreshold: 21,
      env: { AGE_THRESHOLDS: '{"JP":20}' },
      trustProxy: true,
      geo: { countryHeader: 'CF-IPCountry' },
    });
    try {
      const otherKey = (await createWebsiteWithKeys(other, [])).live;
      expect((await fetchRequirement(other, otherKey, { 'CF-IPCountry': 'FR' })).body.age_threshold).to.equal(21);
      expect((await fetchRequirement(other, otherKey, { 'CF-IPCountry': 'JP' })).body.age_threshold).to.equal(20);
    } finally {
      await other.close();
    }
  });
});
