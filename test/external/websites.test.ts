import { expect } from 'chai';
import type { Website } from '../../lib/websites/index.js';
import { startTestApp, useApp } from '../helpers/app.js';
import { createWebmasterFixture } from '../helpers/fixtures.js';
import { apiClient, expectError, snapshot, type ApiClient } from './api.js';

describe('External API: websites', () => {
  const app = useApp();
  let api: ApiClient;

  before(async () => {
    api = apiClient(app.url, (await createWebmasterFixture(app.provider.runtime)).apiToken);
  });

  it('lists no websites for a new webmaster', async () => {
    const response = await api.get('/website');
    expect(response.status).to.equal(200);
    expect(response.body).to.deep.equal([]);
  });

  it('creates a website with the spec defaults and both keys', async () => {
    const response = await api.post<Website>('/website', { name: 'Shop', domain: 'shop.example.com' });
    expect(response.status).to.equal(200);
    const website = response.body;
    expect(website).to.have.all.keys('id', 'name', 'domain', 'language', 'regions', 'challenges', 'keys');
    expect(website).to.deep.include({
      name: 'Shop',
      domain: 'shop.example.com',
      language: 'auto',
      regions: [],
      challenges: ['selfie', 'email_age', 'ticket'],
    });
    expect(website.id).to.be.a('number').above(0);
    expect(website.keys.map((key) => key.environment)).to.deep.equal(['LIVE', 'TEST']);
    expect(website.keys[0]!.publicKey).to.match(/^pk_live_[A-Za-z0-9_-]{32}$/);
    expect(website.keys[1]!.publicKey).to.match(/^pk_test_[A-Za-z0-9_-]{32}$/);
  });

  it('creates a website with every field given, trimming the name', async () => {
    const response = await api.post<Website>('/website', {
      name: '  Blog  ',
      domain: 'xn--mnchen-3ya.de',
      language: 'de',
      challenges: ['credit_card', 'pleenk'],
      regions: ['DE', 'US-TX', 'US-DC'],
    });
    expect(response.status).to.equal(200);
    expect(response.body).to.deep.include({
      name: 'Blog',
      domain: 'xn--mnchen-3ya.de',
      language: 'de',
      challenges: ['credit_card', 'pleenk'],
      regions: ['DE', 'US-TX', 'US-DC'],
    });
  });

  it('retrieves a website and lists every website of the webmaster, oldest first', async () => {
    const created = await api.post<Website>('/website', { name: 'Third', domain: 'third.example.org' });
    const one = await api.get<Website>(`/website/${created.body.id}`);
    expect(one.status).to.equal(200);
    expect(one.body).to.deep.equal(created.body);
    const all = await api.get<Website[]>('/website');
    expect(all.status).to.equal(200);
    expect(all.body.map((website) => website.name)).to.deep.equal(['Shop', 'Blog', 'Third']);
    expect(all.body[2]).to.deep.equal(created.body);
  });

  it('updates only the fields sent', async () => {
    const created = await api.post<Website>('/website', {
      name: 'Before',
      domain: 'update.example.com',
      language: 'fr',
      regions: ['FR'],
    });
    const id = created.body.id;
    const named = await api.patch<Website>(`/website/${id}`, { name: 'After' });
    expect(named.status).to.equal(200);
    expect(named.body).to.deep.equal({ ...created.body, name: 'After' });
    const changed = await api.patch<Website>(`/website/${id}`, { language: 'it', challenges: ['ticket'], regions: [] });
    expect(changed.body).to.deep.equal({
      ...created.body,
      name: 'After',
      language: 'it',
      challenges: ['ticket'],
      regions: [],
    });
    expect((await api.get(`/website/${id}`)).body).to.deep.equal(changed.body);
  });

  it('refuses a domain in an update (rule 1) and an empty update (rule 2), changing nothing', async () => {
    const created = await api.post<Website>('/website', { name: 'Fixed', domain: 'fixed.example.com' });
    const before = await snapshot(app.database.db);
    expect(
      expectError(await api.patch(`/website/${created.body.id}`, { domain: 'other.example.com' }), 400),
    ).to.contain('domain');
    expect(
      expectError(await api.patch(`/website/${created.body.id}`, { name: 'New', domain: 'other.example.com' }), 400),
    ).to.contain('domain');
    expect(expectError(await api.patch(`/website/${created.body.id}`, {}), 400)).to.contain('at least one');
    expect(await snapshot(app.database.db)).to.equal(before);
  });

  it('answers 404 for a website id that does not exist', async () => {
    expectError(await api.get('/website/999999'), 404);
    expectError(await api.patch('/website/999999', { name: 'x' }), 404);
  });
});

describe("External API: a new website's default challenges follow the operator's <NAME>_FREE settings", () => {
  const stripe = { STRIPE_SECRET_KEY: 'sk_test_51abc', STRIPE_PUBLISHABLE_KEY: 'pk_test_51abc' };

  async function defaultsWith(env: NodeJS.ProcessEnv): Promise<string[]> {
    const app = await startTestApp({ env });
    try {
      const api = apiClient(app.url, (await createWebmasterFixture(app.provider.runtime)).apiToken);
      const created = await api.post<Website>('/website', { name: 'Shop', domain: 'shop.example.com' });
      expect(created.status).to.equal(200);
      return created.body.challenges;
    } finally {
      await app.close();
    }
  }

  it('adds credit_card when CREDIT_CARD_FREE=true with the credit-card settings', async () => {
    expect(await defaultsWith({ ...stripe, CREDIT_CARD_FREE: 'true' })).to.deep.equal([
      'selfie',
      'email_age',
      'credit_card',
      'ticket',
    ]);
  });

  it('leaves credit_card out when CREDIT_CARD_FREE is not set, configured or not', async () => {
    expect(await defaultsWith(stripe)).to.deep.equal(['selfie', 'email_age', 'ticket']);
    expect(await defaultsWith({ CREDIT_CARD_FREE: 'true' })).to.deep.equal(['selfie', 'email_age', 'ticket']);
  });
});
