import { expect } from 'chai';
import type { OAuth2Configuration, Website } from '../../lib/websites/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createWebmasterFixture } from '../helpers/fixtures.js';
import { apiClient, expectError, snapshot, type ApiClient } from './api.js';

describe('External API: OAuth2 configurations', () => {
  let app: TestApp;
  let api: ApiClient;
  const newWebsite = async () =>
    (await api.post<Website>('/website', { name: 'OAuth', domain: 'oauth.example.com' })).body.id;

  before(async () => {
    app = await startTestApp();
    api = apiClient(app.url, (await createWebmasterFixture(app.provider.runtime)).apiToken);
  });
  after(() => app.close());

  it('creates an ACTIVE configuration with credentials at once, per environment', async () => {
    const id = await newWebsite();
    const live = await api.post<OAuth2Configuration>(`/website/${id}/oauth2/live`, {
      redirectUris: ['https://oauth.example.com/cb'],
    });
    expect(live.status).to.equal(200);
    expect(live.body).to.have.all.keys('environment', 'redirectUris', 'status', 'clientId', 'clientSecret');
    expect(live.body).to.deep.include({
      environment: 'LIVE',
      redirectUris: ['https://oauth.example.com/cb'],
      status: 'ACTIVE',
    });
    expect(live.body.clientId).to.match(/^live_[A-Za-z0-9_-]{32}$/);
    expect(live.body.clientSecret).to.match(/^[A-Za-z0-9_-]{43}$/);
    const test = await api.post<OAuth2Configuration>(`/website/${id}/oauth2/test`, {
      redirectUris: ['http://localhost:3000/cb', 'http://127.0.0.1/cb'],
    });
    expect(test.body).to.deep.include({ environment: 'TEST', status: 'ACTIVE' });
    expect(test.body.clientId).to.match(/^test_/);
  });

  it('stores the client secret sealed and shows it again on retrieve', async () => {
    const id = await newWebsite();
    const created = await api.post<OAuth2Configuration>(`/website/${id}/oauth2/live`, {
      redirectUris: ['https://oauth.example.com/cb'],
    });
    const row = await app.database
      .db('oauth2_credentials')
      .where('client_id', created.body.clientId!)
      .first<{ secret_sealed: string }>();
    expect(row.secret_sealed).to.not.contain(created.body.clientSecret!);
    const fetched = await api.get<OAuth2Configuration>(`/website/${id}/oauth2/live`);
    expect(fetched.status).to.equal(200);
    expect(fetched.body).to.deep.equal(created.body);
  });

  it('refuses a second create for the same environment, changing nothing', async () => {
    const id = await newWebsite();
    await api.post(`/website/${id}/oauth2/test`, { redirectUris: ['https://oauth.example.com/cb'] });
    const before = await snapshot(app.database.db);
    expectError(
      await api.post(`/website/${id}/oauth2/test`, { redirectUris: ['https://oauth.example.com/other'] }),
      400,
    );
    expect(await snapshot(app.database.db)).to.equal(before);
  });

  it('answers 404 for a configuration not created yet', async () => {
    const id = await newWebsite();
    expectError(await api.get(`/website/${id}/oauth2/live`), 404);
    expectError(await api.patch(`/website/${id}/oauth2/live`, { status: 'DISABLED' }), 404);
    expectError(await api.patch(`/website/${id}/oauth2/live/regenerate`), 404);
  });

  it('applies redirectUris, and DISABLED hides the credentials and ignores redirectUris (rules 3 and 5)', async () => {
    const id = await newWebsite();
    const created = (
      await api.post<OAuth2Configuration>(`/website/${id}/oauth2/live`, {
        redirectUris: ['https://oauth.example.com/a'],
      })
    ).body;
    const moved = await api.patch<OAuth2Configuration>(`/website/${id}/oauth2/live`, {
      redirectUris: ['https://oauth.example.com/b', 'https://oauth.example.com/c'],
    });
    expect(moved.status).to.equal(200);
    expect(moved.body).to.deep.equal({
      ...created,
      redirectUris: ['https://oauth.example.com/b', 'https://oauth.example.com/c'],
    });

    const disabled = await api.patch<OAuth2Configuration>(`/website/${id}/oauth2/live`, {
      status: 'DISABLED',
      redirectUris: ['https://ignored.example.com/'],
    });
    expect(disabled.status).to.equal(200);
    expect(disabled.body).to.deep.equal({
      environment: 'LIVE',
      status: 'DISABLED',
      redirectUris: ['https://oauth.example.com/b', 'https://oauth.example.com/c'],
    });
    expect((await api.get(`/website/${id}/oauth2/live`)).body).to.deep.equal(disabled.body);

    const active = await api.patch<OAuth2Configuration>(`/website/${id}/oauth2/live`, {
      status: 'ACTIVE',
      redirectUris: ['https://oauth.example.com/d'],
    });
    expect(active.body).to.deep.equal({ ...created, redirectUris: ['https://oauth.example.com/d'] });
  });

  it('regenerates credentials only while ACTIVE (rule 4)', async () => {
    const id = await newWebsite();
    const created = (
      await api.post<OAuth2Configuration>(`/website/${id}/oauth2/test`, {
        redirectUris: ['https://oauth.example.com/a'],
      })
    ).body;
    const regenerated = await api.patch<OAuth2Configuration>(`/website/${id}/oauth2/test/regenerate`);
    expect(regenerated.status).to.equal(200);
    expect(regenerated.body).to.deep.include({
      environment: 'TEST',
      status: 'ACTIVE',
      redirectUris: ['https://oauth.example.com/a'],
    });
    expect(regenerated.body.clientId)
      .to.match(/^test_/)
      .and.not.equal(created.clientId);
    expect(regenerated.body.clientSecret).to.not.equal(created.clientSecret);
    expect((await api.get(`/website/${id}/oauth2/test`)).body).to.deep.equal(regenerated.body);

    await api.patch(`/website/${id}/oauth2/test`, { status: 'DISABLED' });
    const before = await snapshot(app.database.db);
    expect(expectError(await api.patch(`/website/${id}/oauth2/test/regenerate`), 400)).to.contain('ACTIVE');
    expect(await snapshot(app.database.db)).to.equal(before);
  });
});
