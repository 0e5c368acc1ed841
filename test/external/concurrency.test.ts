import { expect } from 'chai';
import type { OAuth2Configuration, Website } from '../../lib/websites/index.js';
import { useApp } from '../helpers/app.js';
import { createWebmasterFixture } from '../helpers/fixtures.js';
import { apiClient, type ApiClient } from './api.js';

describe('External API: concurrent writes', () => {
  const app = useApp();
  let api: ApiClient;

  before(async () => {
    api = apiClient(app.url, (await createWebmasterFixture(app.provider.runtime)).apiToken);
  });

  const newWebsite = async () =>
    (await api.post<Website>('/website', { name: 'Race', domain: 'race.example.com' })).body.id;

  it('leaves exactly one current pair and at most one in grace when regenerations race', async () => {
    const websiteId = await newWebsite();
    await api.post(`/website/${websiteId}/oauth2/live`, { redirectUris: ['https://race.example.com/cb'] });
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => api.patch<OAuth2Configuration>(`/website/${websiteId}/oauth2/live/regenerate`)),
    );
    expect(responses.map((response) => response.status)).to.deep.equal(Array(10).fill(200));

    const rows = await app.database
      .db('oauth2_credentials as c')
      .join('oauth2_configs as o', 'o.id', 'c.config_id')
      .where('o.website_id', websiteId)
      .select<Array<{ client_id: string; superseded_at: Date | null; valid_until: Date | null }>>(
        'c.client_id',
        'c.superseded_at',
        'c.valid_until',
      );
    expect(rows).to.have.length(11);
    const current = rows.filter((row) => row.superseded_at === null);
    expect(current).to.have.length(1);
    const now = Date.now();
    expect(rows.filter((row) => row.valid_until !== null && row.valid_until.getTime() > now)).to.have.length(1);
    const shown = await api.get<OAuth2Configuration>(`/website/${websiteId}/oauth2/live`);
    expect(shown.body.clientId).to.equal(current[0]!.client_id);
    expect(
      responses.map((response) => response.body.clientId),
      'one of the racers returned the final pair',
    ).to.include(current[0]!.client_id);
  });

  it('creates one configuration when creates race, answering 400 to the others', async () => {
    const websiteId = await newWebsite();
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        api.post(`/website/${websiteId}/oauth2/test`, { redirectUris: [`https://race.example.com/cb/${index}`] }),
      ),
    );
    expect(responses.map((response) => response.status).sort((a, b) => a - b)).to.deep.equal([
      200, 400, 400, 400, 400, 400,
    ]);
    expect(
      await app.database
        .db('oauth2_configs')
        .where('website_id', websiteId)
        .count<Array<{ count: number }>>('id as count'),
    ).to.deep.equal([{ count: 1 }]);
    expect(
      await app.database
        .db('oauth2_credentials as c')
        .join('oauth2_configs as o', 'o.id', 'c.config_id')
        .where('o.website_id', websiteId)
        .count<Array<{ count: number }>>('c.id as count'),
    ).to.deep.equal([{ count: 1 }]);
  });
});
