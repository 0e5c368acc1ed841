import { expect } from 'chai';
import { authorize, issueToken, readResources, requestToken, useOAuth2App } from './helpers/oauth2.js';

interface ErrorBody {
  error: string;
  error_description: string;
}

async function expect405(response: Response, allow: string): Promise<ErrorBody> {
  expect(response.status, response.url).to.equal(405);
  expect(response.headers.get('allow')).to.equal(allow);
  expect(response.headers.get('content-type')).to.match(/^application\/json/);
  expect(response.headers.get('access-control-allow-origin')).to.equal(null);
  const body = (await response.json()) as ErrorBody;
  expect(body.error).to.equal('invalid_request');
  return body;
}

describe('oauth2: methods and trailing slashes on every OAuth2 path', () => {
  const harness = useOAuth2App();
  const url = (path: string) => `${harness.app.url}${path}`;

  it('answers a wrong method with JSON 405 and Allow, not the visitor HTML 404', async () => {
    const token = await expect405(await fetch(url('/v1/oauth2/token')), 'POST');
    expect(token.error_description).to.equal('GET is not allowed on /v1/oauth2/token: use POST');
    const resources = await expect405(await fetch(url('/v1/oauth2/resources'), { method: 'POST' }), 'GET, HEAD');
    expect(resources.error_description).to.equal('POST is not allowed on /v1/oauth2/resources: use GET');
    await expect405(await fetch(url('/v1/oauth2/token/introspection')), 'POST');
    await expect405(await fetch(url('/v1/oauth2/token/revocation'), { method: 'PUT' }), 'POST');
    await expect405(await fetch(url('/v1/oauth2/jwks'), { method: 'POST' }), 'GET, HEAD, OPTIONS');
    await expect405(await fetch(url('/api/oauth2/token')), 'POST');
    await expect405(await fetch(url('/api/oauth2/resources'), { method: 'DELETE' }), 'GET, HEAD');
    await expect405(await fetch(url('/v1/oauth2/login'), { method: 'POST' }), 'GET, HEAD');
  });

  it('answers no CORS preflight on the token, introspection and revocation endpoints', async () => {
    const preflight = {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    };
    for (const path of [
      '/v1/oauth2/token',
      '/v1/oauth2/token/introspection',
      '/v1/oauth2/token/revocation',
      '/api/oauth2/token',
    ]) {
      await expect405(await fetch(url(path), preflight), 'POST');
    }
  });

  it('treats a trailing slash the same on every OAuth2 path', async () => {
    const client = await harness.client();
    const { code } = await authorize(harness.app, client);
    const tokenResponse = await requestToken(harness.app, { code, client, path: '/v1/oauth2/token/' });
    expect(tokenResponse.status).to.equal(200);
    const { access_token: accessToken } = (await tokenResponse.json()) as { access_token: string };
    expect((await readResources(harness.app, accessToken, '/v1/oauth2/resources/')).status).to.equal(200);
    expect((await readResources(harness.app, accessToken, '/api/oauth2/resources/')).status).to.equal(200);

    const metadata = await fetch(url('/.well-known/oauth-authorization-server/'));
    expect(metadata.status).to.equal(200);
    expect(await metadata.json()).to.have.property('token_endpoint');
    expect((await fetch(url('/v1/oauth2/jwks/'))).status).to.equal(200);

    const basic = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`;
    const form = { 'content-type': 'application/x-www-form-urlencoded', authorization: basic };
    const introspection = await fetch(url('/v1/oauth2/token/introspection/'), {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({ token: accessToken }),
    });
    expect(await introspection.json()).to.include({ active: true });
    const revocation = await fetch(url('/v1/oauth2/token/revocation/'), {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({ token: accessToken }),
    });
    expect(revocation.status).to.equal(200);
    expect((await readResources(harness.app, accessToken)).status).to.equal(401);

    const entry = await fetch(
      url(
        `/v1/oauth2/checker/?client_id=${encodeURIComponent(client.clientId)}&redirect_uri=${encodeURIComponent(client.redirectUri)}`,
      ),
      { redirect: 'manual' },
    );
    expect(entry.status).to.equal(303);
    expect(entry.headers.get('location')).to.match(/\/v1\/oauth2\/interaction\//);
  });

  it('still serves the right methods (token issued by POST, metadata by GET and HEAD)', async () => {
    const client = await harness.client();
    expect((await issueToken(harness.app, client)).access_token).to.be.a('string');
    expect((await fetch(url('/.well-known/oauth-authorization-server'), { method: 'HEAD' })).status).to.equal(200);
  });
});
