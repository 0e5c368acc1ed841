import { expect } from 'chai';
import type { ClientFixture } from '../helpers/fixtures.js';
import { issueToken, readResources, useOAuth2App } from './helpers/oauth2.js';

describe('oauth2: introspection, revocation and metadata', () => {
  const harness = useOAuth2App();

  const post = (path: string, client: ClientFixture, form: Record<string, string>) =>
    fetch(`${harness.app.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams(form),
    });

  it('lets a client introspect its own tokens only', async () => {
    const owner = await harness.client();
    const other = await harness.client();
    const token = await issueToken(harness.app, owner);
    const own = await post('/v1/oauth2/token/introspection', owner, { token: token.access_token });
    expect(own.status).to.equal(200);
    const introspected = (await own.json()) as Record<string, unknown>;
    expect(introspected).to.include({ active: true, client_id: owner.clientId, scope: 'read', token_type: 'Bearer' });
    // The visitor's subject is the same for every website: showing it would let websites correlate visitors.
    expect(introspected).not.to.have.property('sub');
    const foreign = await post('/v1/oauth2/token/introspection', other, { token: token.access_token });
    expect(await foreign.json()).to.deep.equal({ active: false });
    const unknown = await post('/v1/oauth2/token/introspection', owner, { token: 'nope' });
    expect(await unknown.json()).to.deep.equal({ active: false });
  });

  it('revokes a token for its own client only (RFC 7009)', async () => {
    const owner = await harness.client();
    const other = await harness.client();
    const token = await issueToken(harness.app, owner);
    expect((await post('/v1/oauth2/token/revocation', other, { token: token.access_token })).status).to.equal(200);
    expect((await readResources(harness.app, token.access_token)).status).to.equal(200);
    expect((await post('/v1/oauth2/token/revocation', owner, { token: token.access_token })).status).to.equal(200);
    expect((await readResources(harness.app, token.access_token)).status).to.equal(401);
  });

  it('publishes RFC 8414 metadata with the real paths', async () => {
    const response = await fetch(`${harness.app.url}/.well-known/oauth-authorization-server`);
    expect(response.status).to.equal(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    const base = harness.app.url;
    expect(metadata).to.include({
      issuer: base,
      authorization_endpoint: `${base}/v1/oauth2/checker`,
      token_endpoint: `${base}/v1/oauth2/token`,
      introspection_endpoint: `${base}/v1/oauth2/token/introspection`,
      revocation_endpoint: `${base}/v1/oauth2/token/revocation`,
    });
    expect(metadata['scopes_supported']).to.deep.equal(['read']);
    expect(metadata['response_types_supported']).to.deep.equal(['code']);
    expect(metadata['grant_types_supported']).to.deep.equal(['authorization_code']);
    expect(metadata['code_challenge_methods_supported']).to.deep.equal(['S256']);
    expect(metadata['token_endpoint_auth_methods_supported']).to.have.members([
      'client_secret_basic',
      'client_secret_post',
    ]);
    for (const absent of [
      'userinfo_endpoint',
      'end_session_endpoint',
      'registration_endpoint',
      'pushed_authorization_request_endpoint',
      'device_authorization_endpoint',
    ]) {
      expect(metadata).not.to.have.property(absent);
    }
    // everything the metadata names answers
    expect((await fetch(metadata['jwks_uri'] as string)).status).to.equal(200);
  });

  it('serves none of the provider routes we do not use', async () => {
    for (const path of [
      '/.well-known/openid-configuration',
      '/v1/oauth2/me',
      '/v1/oauth2/session/end',
      '/auth',
      '/token',
    ]) {
      expect((await fetch(`${harness.app.url}${path}`)).status, path).to.equal(404);
    }
    expect((await fetch(`${harness.app.url}/v1/oauth2/session/end/confirm`, { method: 'POST' })).status).to.equal(404);
  });
});
