import { expect } from 'chai';
import { epochSeconds } from '../../lib/clock.js';
import { Browser, locationOf } from '../helpers/browser.js';
import {
  authorizationUrl,
  authorize,
  issueToken,
  readResources,
  requestToken,
  type TokenBody,
  useOAuth2App,
} from './helpers/oauth2.js';

describe('oauth2: code → token → resources', () => {
  const harness = useOAuth2App();

  it('exchanges a code for a token whose Resources describe the verification', async () => {
    const client = await harness.client();
    const { code, state } = await authorize(harness.app, client, { query: { state: 'xyz' } });
    expect(state).to.equal('xyz');
    const response = await requestToken(harness.app, { code, client });
    expect(response.status).to.equal(200);
    expect(response.headers.get('cache-control')).to.equal('no-store');
    expect(response.headers.get('pragma')).to.equal('no-cache');
    const token = (await response.json()) as TokenBody;
    expect(Object.keys(token).sort()).to.deep.equal(['access_token', 'expires_at', 'expires_in', 'token_type']);
    expect(token.token_type).to.equal('Bearer');
    expect(token.expires_in).to.equal(3600);
    expect(token.expires_at - epochSeconds(new Date())).to.be.within(3590, 3600);

    const resources = await readResources(harness.app, token.access_token);
    expect(resources.status).to.equal(200);
    expect(resources.headers.get('cache-control')).to.equal('no-store');
    const body = (await resources.json()) as { resources: Record<string, unknown> };
    expect(Object.keys(body)).to.deep.equal(['resources']);
    const { expires_at: expiresAt, expires_in: expiresIn, uid, ...rest } = body.resources;
    expect(rest).to.deep.equal({
      verified: true,
      country: 'DE',
      country_subdivision: 'DE-BY',
      assurance_level: 'STRICT',
      age_threshold: 18,
      reused: false,
    });
    expect(uid)
      .to.be.a('string')
      .and.match(/^test_/);
    expect(expiresIn).to.be.within(3590, 3600);
    expect(expiresAt).to.equal(epochSeconds(new Date()) + (expiresIn as number));
  });

  it('authenticates the same client by Basic header and by form fields', async () => {
    const client = await harness.client();
    for (const auth of ['basic', 'post'] as const) {
      const { code } = await authorize(harness.app, client);
      const response = await requestToken(harness.app, { code, client, auth });
      expect(response.status, auth).to.equal(200);
    }
  });

  it('answers the legacy token and resources paths exactly like the /v1/ ones', async () => {
    const client = await harness.client();
    const { code } = await authorize(harness.app, client, { entry: '/api/oauth2/login' });
    const response = await requestToken(harness.app, { code, client, path: '/api/oauth2/token' });
    expect(response.status).to.equal(200);
    const token = (await response.json()) as TokenBody;
    expect(Object.keys(token).sort()).to.deep.equal(['access_token', 'expires_at', 'expires_in', 'token_type']);
    const legacy = await readResources(harness.app, token.access_token, '/api/oauth2/resources');
    const current = await readResources(harness.app, token.access_token);
    expect(legacy.status).to.equal(200);
    expect(await legacy.json()).to.deep.equal(await current.json());
  });

  it('completes through the real interaction pages (TEST sandbox shortcut) to a code and its token', async () => {
    const client = await harness.client();
    const browser = new Browser(harness.app.url);
    let response = await browser.request(
      authorizationUrl('', client, 'checker', {
        test_outcome: 'pass',
        test_level: 'ENHANCED',
        test_country: 'US',
        test_subdivision: 'US-TX',
        state: 'q',
      }),
    );
    while (response.status === 303 && locationOf(response).origin === harness.app.url) {
      response = await browser.request(locationOf(response).href);
    }
    const callback = locationOf(response);
    expect(`${callback.origin}${callback.pathname}`).to.equal(client.redirectUri);
    expect(callback.searchParams.get('state')).to.equal('q');
    const token = (await (
      await requestToken(harness.app, { code: callback.searchParams.get('code') ?? '', client })
    ).json()) as TokenBody;
    const body = (await (await readResources(harness.app, token.access_token)).json()) as {
      resources: Record<string, unknown>;
    };
    expect(body.resources).to.include({
      verified: true,
      country: 'US',
      country_subdivision: 'US-TX',
      assurance_level: 'ENHANCED',
    });
  });

  it('issues tokens to a LIVE client too', async () => {
    const client = await harness.client({ environment: 'LIVE', redirectUris: ['https://live.example/callback'] });
    const token = await issueToken(harness.app, client);
    const body = (await (await readResources(harness.app, token.access_token)).json()) as {
      resources: { verified: boolean };
    };
    expect(body.resources.verified).to.equal(true);
  });
});
