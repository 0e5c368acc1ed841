import { expect } from 'chai';
import type { AuditEntry } from '../../lib/audit/trail.js';
import { useApp } from '../helpers/app.js';
import { createWebmasterFixture, type WebmasterFixture } from '../helpers/fixtures.js';
import { apiClient, type ApiClient } from '../external/api.js';
import { verifyTrail } from '../../lib/audit/trail.js';

type Entry = Omit<AuditEntry, 'before' | 'after'> & {
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
};
interface Page {
  entries: Entry[];
  next: number | null;
}

describe('audit trail: every change to a website, through the External API', () => {
  const app = useApp({ env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  let webmaster: WebmasterFixture;
  let api: ApiClient;
  let tokenId: string;
  before(async () => {
    webmaster = await createWebmasterFixture(app.provider.runtime);
    api = apiClient(app.url, webmaster.apiToken);
    tokenId = String(
      (await app.provider
        .db('api_tokens')
        .where({ webmaster_id: webmaster.id })
        .whereNull('revoked_at')
        .first<{ id: number }>('id'))!.id,
    );
  });

  async function everyPage(websiteId: number, limit: number): Promise<Entry[]> {
    const entries: Entry[] = [];
    let before: number | null = null;
    do {
      const answer: { status: number; body: Page } = await api.get<Page>(
        `/website/${websiteId}/audit?limit=${limit}${before ? `&before=${before}` : ''}`,
      );
      expect(answer.status).to.equal(200);
      expect(answer.body.entries.length).to.be.at.most(limit);
      entries.push(...answer.body.entries);
      before = answer.body.next;
    } while (before !== null);
    return entries;
  }

  it('records who, when, from where and what (before and after), never a secret, newest first by pages', async () => {
    const website = (
      await api.post<{ id: number; keys: Array<{ environment: string; publicKey: string }> }>('/website', {
        name: 'Audited',
        domain: 'audited.example.com',
      })
    ).body;
    await api.patch(`/website/${website.id}`, { name: 'Audited shop', regions: ['DE'] });
    const key = (await api.patch<{ publicKey: string }>(`/website/${website.id}/key/live/regenerate`)).body;
    const created = (
      await api.post<{ clientId: string; clientSecret: string }>(`/website/${website.id}/oauth2/live`, {
        redirectUris: ['https://audited.example.com/cb'],
      })
    ).body;
    await api.patch(`/website/${website.id}/oauth2/live`, { status: 'DISABLED' });
    await api.patch(`/website/${website.id}/oauth2/live`, { status: 'ACTIVE' });
    const regenerated = (
      await api.patch<{ clientId: string; clientSecret: string }>(`/website/${website.id}/oauth2/live/regenerate`)
    ).body;
    const hook = (
      await api.post<{ id: number; secret: string }>(`/website/${website.id}/webhooks`, {
        url: 'https://hooks.example.com/in',
        events: ['website.updated'],
      })
    ).body;
    expect((await api.delete(`/website/${website.id}/webhooks/${hook.id}`)).status).to.equal(204);

    const entries = await everyPage(website.id, 3);
    expect(entries.map((entry) => entry.action)).to.deep.equal([
      'webhook.deleted',
      'webhook.created',
      'oauth2.credentials.regenerated',
      'oauth2.updated',
      'oauth2.updated',
      'oauth2.created',
      'key.regenerated',
      'website.updated',
      'website.created',
    ]);
    expect(entries.map((entry) => entry.seq)).to.deep.equal([9, 8, 7, 6, 5, 4, 3, 2, 1]);
    for (const entry of entries) {
      expect(entry.actor).to.deep.equal({ type: 'api_token', id: tokenId });
      expect(entry.address).to.match(/127\.0\.0\.1$/);
      expect(entry.chain).to.equal(`website:${website.id}`);
    }
    const byAction = (action: string) => entries.find((entry) => entry.action === action)!;
    expect(byAction('website.updated').before).to.deep.include({ name: 'Audited', regions: [] });
    expect(byAction('website.updated').after).to.deep.include({ name: 'Audited shop', regions: ['DE'] });
    const live = website.keys.find((one) => one.environment === 'LIVE')!.publicKey;
    expect(byAction('key.regenerated')).to.deep.include({
      before: { environment: 'LIVE', publicKey: live },
      after: { environment: 'LIVE', publicKey: key.publicKey },
    });
    expect(byAction('oauth2.credentials.regenerated')).to.deep.include({
      before: { environment: 'LIVE', clientId: created.clientId },
      after: { environment: 'LIVE', clientId: regenerated.clientId, clientSecret: '(changed)' },
    });
    expect(byAction('webhook.created').after).to.deep.equal({
      id: hook.id,
      url: 'https://hooks.example.com/in',
      events: ['website.updated'],
      secret: '(changed)',
    });
    const text = JSON.stringify(entries);
    for (const secret of [
      created.clientSecret,
      regenerated.clientSecret,
      hook.secret,
      hook.secret.slice(6),
      webmaster.apiToken,
    ])
      expect(text).to.not.include(secret);
    // Each entry links to the one before it.
    for (let index = 0; index < entries.length - 1; index += 1)
      expect(entries[index]!.previousHash).to.equal(entries[index + 1]!.hash);
    expect(entries.at(-1)!.previousHash).to.equal('');
  });

  it('keeps each chain whole under concurrent changes: appends to one website run one after the other', async () => {
    const website = (await api.post<{ id: number }>('/website', { name: 'Busy', domain: 'busy.example.com' })).body;
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, index) => api.patch(`/website/${website.id}`, { name: `Busy ${index}` })),
    );
    expect(answers.map((answer) => answer.status)).to.deep.equal(Array(12).fill(200));
    const entries = await everyPage(website.id, 200);
    expect(entries.map((entry) => entry.seq)).to.deep.equal(Array.from({ length: 13 }, (_, index) => 13 - index));
    expect((await verifyTrail(app.provider.db)).breaks).to.deep.equal([]);
  });

  it("refuses another webmaster's website (401) and a bad query (400, the spec's error body)", async () => {
    const website = (await api.post<{ id: number }>('/website', { name: 'Private', domain: 'private.example.com' }))
      .body;
    const intruder = apiClient(app.url, (await createWebmasterFixture(app.provider.runtime)).apiToken);
    const denied = await intruder.get<{ statusCode: number; error: string }>(`/website/${website.id}/audit`);
    expect(denied.status).to.equal(401);
    expect(denied.body).to.include({ statusCode: 401, error: 'Unauthorized' });
    for (const query of ['limit=0', 'limit=abc', 'limit=1000', 'before=-1', 'since=2026', 'limit=1&limit=2']) {
      const answer = await api.get<{ message: string; statusCode: number; error: string }>(
        `/website/${website.id}/audit?${query}`,
      );
      expect(answer.status, query).to.equal(400);
      expect(answer.body).to.include({ statusCode: 400, error: 'Bad Request' });
      expect(answer.body.message).to.be.a('string').and.not.equal('');
    }
  });
});
