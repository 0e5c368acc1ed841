import { expect } from 'chai';
import type { Website } from '../../lib/websites/index.js';
import { useApp } from '../helpers/app.js';
import {
  createClientFixture,
  createWebmasterFixture,
  type ClientFixture,
  type WebmasterFixture,
} from '../helpers/fixtures.js';
import { apiClient, everyOperation, expectError, send, snapshot } from './api.js';

describe('External API: tenancy', () => {
  const app = useApp();
  let alice: WebmasterFixture;
  let bob: WebmasterFixture;
  let aliceClient: ClientFixture;

  before(async () => {
    alice = await createWebmasterFixture(app.provider.runtime);
    bob = await createWebmasterFixture(app.provider.runtime);
    aliceClient = await createClientFixture(app.provider.runtime, alice.id, {
      environment: 'LIVE',
      name: 'Alice Shop',
      domain: 'alice.example.com',
    });
    await createClientFixture(app.provider.runtime, bob.id, {
      environment: 'LIVE',
      name: 'Bob Shop',
      domain: 'bob.example.com',
    });
  });

  it("answers 401 to every operation on another webmaster's website, revealing and changing nothing", async () => {
    const before = await snapshot(app.database.db);
    for (const call of everyOperation(aliceClient.websiteId).filter((operation) => operation.path !== '/website')) {
      const response = await send(app.url, call, bob.apiToken);
      expect(response.status, `${call.name}: ${JSON.stringify(response.body)}`).to.equal(401);
      const message = expectError(response, 401);
      expect(message).to.not.contain('Alice').and.not.contain('alice.example.com');
    }
    expect(await snapshot(app.database.db)).to.equal(before);
  });

  it('answers 404 to every operation on a website that does not exist', async () => {
    const before = await snapshot(app.database.db);
    for (const call of everyOperation(987654).filter((operation) => operation.path !== '/website')) {
      expectError(await send(app.url, call, bob.apiToken), 404);
    }
    expect(await snapshot(app.database.db)).to.equal(before);
  });

  it('lists only the webmaster’s own websites, and creates websites for the caller only', async () => {
    const bobs = await apiClient(app.url, bob.apiToken).get<Website[]>('/website');
    expect(bobs.body.map((website) => website.name)).to.deep.equal(['Bob Shop']);
    const created = await apiClient(app.url, bob.apiToken).post<Website>('/website', {
      name: 'Bob Blog',
      domain: 'blog.bob.example.com',
    });
    const owner = await app.database
      .db('websites')
      .where('id', created.body.id)
      .first<{ webmaster_id: number }>('webmaster_id');
    expect(owner.webmaster_id).to.equal(bob.id);
    const alices = await apiClient(app.url, alice.apiToken).get<Website[]>('/website');
    expect(alices.body.map((website) => website.name)).to.deep.equal(['Alice Shop']);
  });

  it('still serves the owner after the refusals', async () => {
    const asAlice = apiClient(app.url, alice.apiToken);
    expect((await asAlice.get(`/website/${aliceClient.websiteId}`)).status).to.equal(200);
    expect(
      (await asAlice.get<{ clientId: string }>(`/website/${aliceClient.websiteId}/oauth2/live`)).body.clientId,
    ).to.equal(aliceClient.clientId);
  });
});
