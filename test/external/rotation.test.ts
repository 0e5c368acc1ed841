import { expect } from 'chai';
import type { Clock } from '../../lib/clock.js';
import type { OAuth2Configuration, Website } from '../../lib/websites/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createWebmasterFixture } from '../helpers/fixtures.js';
import { apiClient, type ApiClient } from './api.js';
import { tokenEndpointAccepts as acceptedAt } from '../oauth2/helpers/oauth2.js';

const HOUR = 3600_000;

/** A clock the test moves by hand. */
function manualClock(start: Date): Clock & { advance(milliseconds: number): void } {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance: (milliseconds) => {
      current += milliseconds;
    },
  };
}

interface CredentialRow {
  client_id: string;
  superseded_at: Date | null;
  valid_until: Date | null;
}

describe('External API: OAuth2 credential rotation', () => {
  const start = new Date('2031-03-01T12:00:00Z');
  const clock = manualClock(start);
  let app: TestApp;
  let api: ApiClient;
  const redirectUri = 'https://rotation.example.com/cb';

  before(async () => {
    app = await startTestApp({ clock });
    api = apiClient(app.url, (await createWebmasterFixture(app.provider.runtime)).apiToken);
  });
  after(() => app.close());

  async function newConfiguration(): Promise<{ websiteId: number; initial: OAuth2Configuration }> {
    const websiteId = (await api.post<Website>('/website', { name: 'Rotation', domain: 'rotation.example.com' })).body
      .id;
    const initial = (
      await api.post<OAuth2Configuration>(`/website/${websiteId}/oauth2/live`, { redirectUris: [redirectUri] })
    ).body;
    return { websiteId, initial };
  }

  const regenerate = async (websiteId: number) =>
    (await api.patch<OAuth2Configuration>(`/website/${websiteId}/oauth2/live/regenerate`)).body;

  const row = (clientId: string) =>
    app.database.db('oauth2_credentials').where('client_id', clientId).first<CredentialRow>();

  const tokenEndpointAccepts = (pair: OAuth2Configuration) => acceptedAt(app.url, pair, redirectUri);

  it('keeps the previous pair valid for 24 hours after a regeneration, the new one at once', async () => {
    const { websiteId, initial } = await newConfiguration();
    expect(await tokenEndpointAccepts(initial)).to.equal(true);
    clock.advance(HOUR);
    const regeneratedAt = clock.now();
    const next = await regenerate(websiteId);

    expect(await row(initial.clientId!)).to.deep.include({
      superseded_at: regeneratedAt,
      valid_until: new Date(regeneratedAt.getTime() + 24 * HOUR),
    });
    expect(await row(next.clientId!)).to.deep.include({ superseded_at: null, valid_until: null });
    expect(await tokenEndpointAccepts(next)).to.equal(true);
    expect(await tokenEndpointAccepts(initial)).to.equal(true);

    clock.advance(24 * HOUR - 1000);
    expect(await tokenEndpointAccepts(initial), 'one second before the end of the grace period').to.equal(true);
    clock.advance(2000);
    expect(await tokenEndpointAccepts(initial), 'one second after').to.equal(false);
    expect(await tokenEndpointAccepts(next)).to.equal(true);
    expect((await api.get(`/website/${websiteId}/oauth2/live`)).body).to.deep.equal(next);
  });

  it('invalidates the pair still in its grace period at once on a second regeneration', async () => {
    const { websiteId, initial } = await newConfiguration();
    const second = await regenerate(websiteId);
    clock.advance(2 * HOUR);
    const secondRegenerationAt = clock.now();
    const third = await regenerate(websiteId);

    expect(await row(initial.clientId!), 'the first pair ends now').to.deep.include({
      valid_until: secondRegenerationAt,
    });
    expect(await row(second.clientId!), 'the second pair gets its 24 hours').to.deep.include({
      superseded_at: secondRegenerationAt,
      valid_until: new Date(secondRegenerationAt.getTime() + 24 * HOUR),
    });
    expect(await tokenEndpointAccepts(initial)).to.equal(false);
    expect(await tokenEndpointAccepts(second)).to.equal(true);
    expect(await tokenEndpointAccepts(third)).to.equal(true);
  });

  it('stops every pair while DISABLED and restores the current one on ACTIVE', async () => {
    const { websiteId, initial } = await newConfiguration();
    await api.patch(`/website/${websiteId}/oauth2/live`, { status: 'DISABLED' });
    expect(await tokenEndpointAccepts(initial)).to.equal(false);
    const active = await api.patch<OAuth2Configuration>(`/website/${websiteId}/oauth2/live`, { status: 'ACTIVE' });
    expect(active.body).to.deep.equal(initial);
    expect(await tokenEndpointAccepts(initial)).to.equal(true);
  });
});
