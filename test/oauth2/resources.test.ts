import { expect } from 'chai';
import { epochSeconds } from '../../lib/clock.js';
import { sha256 } from '../../lib/security/hashing.js';
import { regenerateOAuth2Credentials, updateOAuth2Config } from '../../lib/websites/oauth2.js';
import { authorize, issueToken, readResources, requestToken, type TokenBody, useOAuth2App } from './helpers/oauth2.js';
import { TEST_ORIGIN } from '../helpers/fixtures.js';

describe('oauth2: resources endpoint (RFC 6750)', () => {
  const harness = useOAuth2App();

  async function expectInvalidToken(response: Response): Promise<void> {
    expect(response.status).to.equal(401);
    expect(response.headers.get('www-authenticate')).to.match(/^Bearer .*error="invalid_token"/);
    expect(response.headers.get('cache-control')).to.equal('no-store');
    const body = (await response.json()) as { error: string; error_description: string };
    expect(body.error).to.equal('invalid_token');
    expect(body.error_description).to.be.a('string');
  }

  it('answers 401 invalid_token without a token, with an unknown one, or with another scheme', async () => {
    await expectInvalidToken(await readResources(harness.app, undefined));
    await expectInvalidToken(await readResources(harness.app, 'unknown-token'));
    await expectInvalidToken(
      await fetch(`${harness.app.url}/v1/oauth2/resources`, { headers: { authorization: 'Basic Zm9vOmJhcg==' } }),
    );
    await expectInvalidToken(await readResources(harness.app, 'unknown-token', '/api/oauth2/resources'));
  });

  it('answers 401 with a Bearer challenge to any other scheme, whatever its value decodes to (a confused client sending its token as Basic)', async () => {
    const values = [
      Buffer.from([0xff, 0xfe, 0x3a, 0x80]).toString('base64'), // not UTF-8
      Buffer.from('client\u0000:secret').toString('base64'), // a NUL
      Buffer.from('a%00b:%ff').toString('base64'), // encoded NUL, broken encoding
      'not-base64-at-all',
    ];
    for (const path of ['/v1/oauth2/resources', '/api/oauth2/resources']) {
      for (const value of values)
        await expectInvalidToken(
          await fetch(`${harness.app.url}${path}`, { headers: { authorization: `Basic ${value}` } }),
        );
      await expectInvalidToken(
        await fetch(`${harness.app.url}${path}`, { headers: { authorization: 'Digest username="a%00"' } }),
      );
    }
  });

  it('answers 400 invalid_request to a malformed Bearer header', async () => {
    for (const header of ['Bearer', 'Bearer a b', 'Bearer ä']) {
      const response = await fetch(`${harness.app.url}/v1/oauth2/resources`, { headers: { authorization: header } });
      expect(response.status, header).to.equal(400);
      expect(response.headers.get('www-authenticate')).to.match(/^Bearer .*error="invalid_request"/);
      expect(await response.json()).to.include({ error: 'invalid_request' });
    }
  });

  it('answers 401 once the token is an hour old', async () => {
    const client = await harness.client();
    const token = await issueToken(harness.app, client);
    harness.clock.advance(3590);
    expect((await readResources(harness.app, token.access_token)).status).to.equal(200);
    harness.clock.advance(11);
    await expectInvalidToken(await readResources(harness.app, token.access_token));
  });

  it('counts expires_in down to the expiry of the verification, then answers 401', async () => {
    const client = await harness.client();
    const { code } = await authorize(harness.app, client, {
      verification: { ttlSeconds: 120, reused: true, countrySubdivision: null, country: 'ZZ' },
    });
    const token = (await (await requestToken(harness.app, { code, client })).json()) as TokenBody;
    type Resources = { resources: Record<string, number> };
    const fresh = (await (await readResources(harness.app, token.access_token)).json()) as Resources;
    expect(fresh.resources).to.include({ reused: true, country: 'ZZ', country_subdivision: null });
    expect(fresh.resources['expires_in']).to.be.within(110, 120);
    harness.clock.advance(100);
    const later = (await (await readResources(harness.app, token.access_token)).json()) as Resources;
    expect(later.resources['expires_at']).to.equal(fresh.resources['expires_at']);
    expect(later.resources['expires_in']).to.be.within(1, (fresh.resources['expires_in'] ?? 0) - 100);
    harness.clock.advance(21);
    await expectInvalidToken(await readResources(harness.app, token.access_token));
  });

  it('answers 401 to a token past its exp that the provider still finds within its clock tolerance', async () => {
    const client = await harness.client();
    const token = await issueToken(harness.app, client);
    // Our clock and the provider's may disagree by a moment: the stored row is live, its exp just passed.
    await harness.app.provider
      .db('oidc_payloads')
      .where({ type: 'AccessToken', id: sha256(token.access_token) })
      .update({
        payload: harness.app.provider.db.raw(`jsonb_set(payload, '{exp}', to_jsonb(?::int))`, [
          epochSeconds(new Date()) - 5,
        ]),
      });
    await expectInvalidToken(await readResources(harness.app, token.access_token));
  });

  it('reads the token, its grant, its client and the verification in one statement', async () => {
    const client = await harness.client();
    const token = await issueToken(harness.app, client);
    const queries: string[] = [];
    const record = (query: { sql: string }) => queries.push(query.sql);
    harness.app.provider.db.on('query', record);
    expect((await readResources(harness.app, token.access_token)).status).to.equal(200);
    harness.app.provider.db.off('query', record);
    expect(queries).to.have.length(1);
  });

  it('refuses the tokens of a configuration the website disabled, and serves them again once re-enabled', async () => {
    const client = await harness.client();
    const token = await issueToken(harness.app, client);
    const { runtime } = harness.app.provider;
    await updateOAuth2Config(
      runtime,
      harness.webmasterId,
      client.websiteId,
      client.environment,
      { status: 'DISABLED' },
      TEST_ORIGIN,
    );
    await expectInvalidToken(await readResources(harness.app, token.access_token));
    await updateOAuth2Config(
      runtime,
      harness.webmasterId,
      client.websiteId,
      client.environment,
      { status: 'ACTIVE' },
      TEST_ORIGIN,
    );
    expect((await readResources(harness.app, token.access_token)).status).to.equal(200);
  });

  it("serves a superseded credential's tokens through its grace period and refuses them after it", async () => {
    const client = await harness.client();
    const token = await issueToken(harness.app, client);
    const { runtime } = harness.app.provider;
    await regenerateOAuth2Credentials(runtime, harness.webmasterId, client.websiteId, client.environment, TEST_ORIGIN);
    expect((await readResources(harness.app, token.access_token)).status).to.equal(200);
    // A second regeneration ends the first pair's grace at once.
    await regenerateOAuth2Credentials(runtime, harness.webmasterId, client.websiteId, client.environment, TEST_ORIGIN);
    await expectInvalidToken(await readResources(harness.app, token.access_token));
  });
});
