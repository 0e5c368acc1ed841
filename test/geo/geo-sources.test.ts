import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createWebsiteWithKeys, fetchRequirement } from '../requirement/website-keys.js';
import { buildMmdb, cityRecord } from './mmdb-writer.js';

// Where a visitor is, as the public requirement endpoint reports it (country, country_subdivision).

const GEO_HEADERS = { countryHeader: 'CF-IPCountry', subdivisionHeader: 'X-Region' };

describe('geolocation sources', () => {
  let folder: string;
  let database: string;

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'age-provider-geo-'));
    database = join(folder, 'City-Test.mmdb');
    await writeFile(
      database,
      buildMmdb({
        '127.0.0.0/8': cityRecord('CA', 'QC'),
        '192.0.2.0/24': cityRecord('US', 'TX'),
        '198.51.100.0/24': cityRecord('DE', 'BY'),
        '203.0.113.0/24': cityRecord('JP'),
        '2001:db8::/32': cityRecord('FR', 'IDF'),
        '100.64.0.0/24': { country: { iso_code: 'EU' } }, // a legacy continent code, not a country
        '100.64.1.0/24': cityRecord('US', 'ZZZ'), // a subdivision that does not exist
      }),
    );
  });
  after(() => rm(folder, { recursive: true, force: true }));

  describe('without any source configured', () => {
    let app: TestApp;
    let key: string;
    before(async () => {
      app = await startTestApp({ trustProxy: true });
      key = (await createWebsiteWithKeys(app, [])).live;
    });
    after(() => app.close());

    it('reports ZZ and no subdivision, whatever the request says', async () => {
      const { body } = await fetchRequirement(app, key, { 'CF-IPCountry': 'US', 'X-Forwarded-For': '192.0.2.1' });
      expect(body).to.include({ country: 'ZZ', country_subdivision: null });
    });
  });

  describe('trusted proxy headers (TRUST_PROXY on)', () => {
    let app: TestApp;
    let key: string;
    before(async () => {
      app = await startTestApp({ trustProxy: true, geo: GEO_HEADERS });
      key = (await createWebsiteWithKeys(app, [])).live;
    });
    after(() => app.close());

    const cases: Array<[string, Record<string, string>, string, string | null]> = [
      ['country and a bare subdivision', { 'CF-IPCountry': 'US', 'X-Region': 'TX' }, 'US', 'US-TX'],
      ['country and a full ISO 3166-2 subdivision', { 'CF-IPCountry': 'US', 'X-Region': 'US-TX' }, 'US', 'US-TX'],
      ['lower case and blanks', { 'CF-IPCountry': ' de ', 'X-Region': 'by' }, 'DE', 'DE-BY'],
      ['a country alone', { 'CF-IPCountry': 'JP' }, 'JP', null],
      ['a subdivision of another country', { 'CF-IPCountry': 'US', 'X-Region': 'DE-BY' }, 'US', null],
      ['a US subdivision that does not exist', { 'CF-IPCountry': 'US', 'X-Region': 'XY' }, 'US', null],
      ['a malformed subdivision', { 'CF-IPCountry': 'FR', 'X-Region': 'Île-de-France' }, 'FR', null],
      ["the CDN's unknown marker", { 'CF-IPCountry': 'XX', 'X-Region': 'TX' }, 'ZZ', null],
      ["the CDN's Tor marker", { 'CF-IPCountry': 'T1' }, 'ZZ', null],
      ['a code no country has', { 'CF-IPCountry': 'QQ' }, 'ZZ', null],
      ['two countries', { 'CF-IPCountry': 'US, DE' }, 'ZZ', null],
      ['script', { 'CF-IPCountry': '<script>' }, 'ZZ', null],
    ];
    for (const [name, headers, country, subdivision] of cases) {
      it(`reads ${name}`, async () => {
        const { response, body } = await fetchRequirement(app, key, headers);
        expect(response.status).to.equal(200);
        expect(body).to.include({ country, country_subdivision: subdivision });
      });
    }

    it('says the answer varies with the geo headers (and with Accept, which asks for the signed answer)', async () => {
      const { response } = await fetchRequirement(app, key, { 'CF-IPCountry': 'US' });
      expect(response.headers.get('vary')).to.equal('CF-IPCountry, X-Region, Accept');
    });
  });

  describe('untrusted proxy headers (TRUST_PROXY off)', () => {
    let app: TestApp;
    let key: string;
    before(async () => {
      app = await startTestApp({ trustProxy: false, geo: { ...GEO_HEADERS, database } });
      key = (await createWebsiteWithKeys(app, [])).live;
    });
    after(() => app.close());

    it('ignores the geo headers and X-Forwarded-For, locating the socket address in the database instead', async () => {
      const { response, body } = await fetchRequirement(app, key, {
        'CF-IPCountry': 'US',
        'X-Region': 'TX',
        'X-Forwarded-For': '198.51.100.9',
      });
      expect(body).to.include({ country: 'CA', country_subdivision: 'CA-QC' });
      // Untrusted geo headers change nothing: the answer varies only with Accept (JSON or the signed answer).
      expect(response.headers.get('vary')).to.equal('Accept');
    });
  });

  describe('a MaxMind database (GEOIP_DATABASE)', () => {
    let app: TestApp;
    let key: string;
    before(async () => {
      app = await startTestApp({ trustProxy: true, env: { GEOIP_DATABASE: database } });
      key = (await createWebsiteWithKeys(app, [])).live;
    });
    after(() => app.close());

    const cases: Array<[string, string, string, string | null]> = [
      ['an IPv4 address with a subdivision', '192.0.2.77', 'US', 'US-TX'],
      ['an IPv4 address with a country only', '203.0.113.5', 'JP', null],
      ['an IPv6 address', '2001:db8:1::5', 'FR', 'FR-IDF'],
      ['an IPv4-mapped IPv6 address', '::ffff:198.51.100.3', 'DE', 'DE-BY'],
      ['an address the database does not know', '8.8.8.8', 'ZZ', null],
      ['a record with a continent instead of a country', '100.64.0.1', 'ZZ', null],
      ['a record with an invalid subdivision', '100.64.1.1', 'US', null],
      ['something that is not an address', 'not-an-ip', 'ZZ', null],
    ];
    for (const [name, address, country, subdivision] of cases) {
      it(`locates ${name} (X-Forwarded-For ${address})`, async () => {
        const { body } = await fetchRequirement(app, key, { 'X-Forwarded-For': address });
        expect(body).to.include({ country, country_subdivision: subdivision });
      });
    }

    it('locates the socket address when no proxy header is sent', async () => {
      const { body } = await fetchRequirement(app, key);
      expect(body).to.include({ country: 'CA', country_subdivision: 'CA-QC' });
    });
  });

  describe('headers and database together', () => {
    let app: TestApp;
    let key: string;
    before(async () => {
      app = await startTestApp({ trustProxy: true, geo: { countryHeader: 'CF-IPCountry', database } });
      key = (await createWebsiteWithKeys(app, [])).live;
    });
    after(() => app.close());

    it('prefers the trusted header over the database', async () => {
      const { body } = await fetchRequirement(app, key, { 'CF-IPCountry': 'JP', 'X-Forwarded-For': '198.51.100.3' });
      expect(body).to.include({ country: 'JP', country_subdivision: null });
    });

    it('takes the subdivision from the database when it agrees on the country', async () => {
      const { body } = await fetchRequirement(app, key, { 'CF-IPCountry': 'US', 'X-Forwarded-For': '192.0.2.1' });
      expect(body).to.include({ country: 'US', country_subdivision: 'US-TX' });
    });

    it('falls back to the database when the header is garbage', async () => {
      const { body } = await fetchRequirement(app, key, { 'CF-IPCountry': 'XX', 'X-Forwarded-For': '198.51.100.3' });
      expect(body).to.include({ country: 'DE', country_subdivision: 'DE-BY' });
    });
  });
});
