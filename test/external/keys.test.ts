import { expect } from 'chai';
import type { Website, WebsiteKey } from '../../lib/websites/index.js';
import { useApp } from '../helpers/app.js';
import { createWebmasterFixture } from '../helpers/fixtures.js';
import { apiClient, expectError, type ApiClient } from './api.js';

describe('External API: website keys', () => {
  const app = useApp();
  let api: ApiClient;
  let website: Website;

  before(async () => {
    api = apiClient(app.url, (await createWebmasterFixture(app.provider.runtime)).apiToken);
    website = (await api.post<Website>('/website', { name: 'Keys', domain: 'keys.example.com' })).body;
  });

  it('retrieves the key of each environment, environment in upper case', async () => {
    for (const [path, environment, index] of [
      ['live', 'LIVE', 0],
      ['test', 'TEST', 1],
    ] as const) {
      const response = await api.get<WebsiteKey>(`/website/${website.id}/key/${path}`);
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal({ environment, publicKey: website.keys[index]!.publicKey });
    }
  });

  it('regenerates a key, replacing it at once and leaving the other environment alone', async () => {
    const regenerated = await api.patch<WebsiteKey>(`/website/${website.id}/key/live/regenerate`);
    expect(regenerated.status).to.equal(200);
    expect(regenerated.body.environment).to.equal('LIVE');
    expect(regenerated.body.publicKey)
      .to.match(/^pk_live_/)
      .and.not.equal(website.keys[0]!.publicKey);
    expect((await api.get(`/website/${website.id}/key/live`)).body).to.deep.equal(regenerated.body);
    expect((await api.get<Website>(`/website/${website.id}`)).body.keys).to.deep.equal([
      regenerated.body,
      website.keys[1],
    ]);
    const rows = await app.database.db('website_keys').where('public_key', website.keys[0]!.publicKey);
    expect(rows, 'the old key is gone').to.have.length(0);
  });

  it('ignores a body sent to regenerate', async () => {
    const response = await api.patch<WebsiteKey>(`/website/${website.id}/key/test/regenerate`, { anything: true });
    expect(response.status).to.equal(200);
    expect(response.body.publicKey)
      .to.match(/^pk_test_/)
      .and.not.equal(website.keys[1]!.publicKey);
  });

  it('answers 400 for an environment other than live or test and 404 for a missing website', async () => {
    for (const environment of ['LIVE', 'Test', 'prod', '%20live']) {
      expectError(await api.get(`/website/${website.id}/key/${environment}`), 400);
      expectError(await api.patch(`/website/${website.id}/key/${environment}/regenerate`), 400);
    }
    expectError(await api.get('/website/424242/key/live'), 404);
    expectError(await api.patch('/website/424242/key/live/regenerate'), 404);
  });
});
