import { setTimeout as delay } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { addSeconds } from '../../lib/clock.js';
import { findClientWebsite } from '../../lib/oauth2/clients.js';
import type { ClientFixture } from '../helpers/fixtures.js';
import { authorizationUrl, authorize, requestToken, useOAuth2App } from './helpers/oauth2.js';

describe('oauth2: clients are the websites’ OAuth2 configurations', () => {
  const harness = useOAuth2App();

  const db = () => harness.app.provider.db;
  const configOf = async (client: ClientFixture): Promise<number> =>
    ((await db()('oauth2_credentials').where('client_id', client.clientId).first('config_id')) as { config_id: number })
      .config_id;

  /** What the External API's regenerate does: the current pair is superseded, valid until `validUntil`; a new pair is current. */
  async function rotate(client: ClientFixture, validUntil: Date): Promise<ClientFixture> {
    const configId = await configOf(client);
    const now = harness.clock.now();
    await db()('oauth2_credentials')
      .where('client_id', client.clientId)
      .update({ superseded_at: now, valid_until: validUntil });
    const fresh = {
      ...client,
      clientId: `test_${randomBytes(12).toString('base64url')}`,
      clientSecret: randomBytes(32).toString('base64url'),
    };
    await db()('oauth2_credentials').insert({
      config_id: configId,
      client_id: fresh.clientId,
      secret_sealed: harness.app.provider.runtime.sealer.seal(fresh.clientSecret),
    });
    return fresh;
  }

  const startsInteraction = async (client: ClientFixture) =>
    (await fetch(authorizationUrl(harness.app.url, client), { redirect: 'manual' })).status === 303;

  it('resolves a client_id to its website in one query, then from the instance cache', async () => {
    const client = await harness.client({
      name: 'Shop',
      domain: 'shop.example',
      language: 'fr',
      challenges: ['ticket'],
      regions: ['US-TX'],
    });
    const queries: string[] = [];
    const record = (query: { sql: string }) => queries.push(query.sql);
    db().on('query', record);
    const website = await findClientWebsite(harness.app.provider.runtime, client.clientId);
    expect(queries).to.have.length(1);
    // The website's creation is announced asynchronously (on PostgreSQL it may empty the cache once more): ask
    // until an answer comes from memory.
    let fromMemory = false;
    for (let attempt = 0; attempt < 50 && !fromMemory; attempt += 1) {
      const before = queries.length;
      expect(await findClientWebsite(harness.app.provider.runtime, client.clientId)).to.deep.equal(website);
      fromMemory = queries.length === before;
      if (!fromMemory) await delay(20);
    }
    db().off('query', record);
    expect(fromMemory, 'a repeated lookup is answered from the instance cache').to.equal(true);
    expect(website).to.deep.equal({
      clientId: client.clientId,
      environment: 'TEST',
      redirectUris: [client.redirectUri],
      website: {
        id: client.websiteId,
        name: 'Shop',
        domain: 'shop.example',
        domainVerified: false,
        language: 'fr',
        challenges: ['ticket'],
        regions: ['US-TX'],
        policyRules: [],
      },
    });
    expect(await findClientWebsite(harness.app.provider.runtime, 'unknown')).to.equal(undefined);
  });

  it('stops authorization and token requests at once when the configuration is DISABLED', async () => {
    const client = await harness.client();
    const { code } = await authorize(harness.app, client);
    await db()('oauth2_configs')
      .where('id', await configOf(client))
      .update({ status: 'DISABLED' });
    const page = await fetch(authorizationUrl(harness.app.url, client, 'checker', { state: 's' }), {
      redirect: 'manual',
    });
    expect(page.status).to.equal(400);
    expect(page.headers.get('location')).to.equal(null);
    expect(await page.text()).to.contain('switched off');
    const token = await requestToken(harness.app, { code, client });
    expect(token.status).to.equal(401);
    expect(await token.json()).to.include({ error: 'invalid_client' });
    expect(await findClientWebsite(harness.app.provider.runtime, client.clientId)).to.equal(undefined);
  });

  it('honours a superseded pair during its grace period and not after', async () => {
    const client = await harness.client();
    const fresh = await rotate(client, addSeconds(harness.clock.now(), 24 * 3600));
    expect(await startsInteraction(client)).to.equal(true);
    expect(await startsInteraction(fresh)).to.equal(true);
    const { code } = await authorize(harness.app, client);
    expect((await requestToken(harness.app, { code, client })).status).to.equal(200);

    // a code stays bound to the client_id it was issued to, even across a rotation
    const { code: oldCode } = await authorize(harness.app, client);
    const crossed = await requestToken(harness.app, { code: oldCode, client: fresh });
    expect(crossed.status).to.equal(400);
    expect(await crossed.json()).to.include({ error: 'invalid_grant' });

    const { code: late } = await authorize(harness.app, client);
    harness.clock.advance(24 * 3600 + 1);
    expect(await startsInteraction(client)).to.equal(false);
    expect((await requestToken(harness.app, { code: late, client })).status).to.equal(401);
    expect(await startsInteraction(fresh)).to.equal(true);
  });

  it('refuses a superseded pair whose grace period is over at once', async () => {
    const client = await harness.client();
    const fresh = await rotate(client, addSeconds(harness.clock.now(), -1));
    expect(await startsInteraction(client)).to.equal(false);
    const { code } = await authorize(harness.app, fresh);
    expect((await requestToken(harness.app, { code, client: fresh })).status).to.equal(200);
    expect(
      (await requestToken(harness.app, { code, client: { ...client, redirectUri: fresh.redirectUri } })).status,
    ).to.equal(401);
  });
});
