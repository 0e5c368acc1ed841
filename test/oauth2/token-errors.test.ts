import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { authorize, readResources, requestToken, type TokenBody, useOAuth2App } from './helpers/oauth2.js';
import { authorizationUrl } from '../helpers/relying-party.js';

interface ErrorBody {
  error: string;
  error_description?: string;
}

async function expectError(response: Response, status: number, error: string): Promise<ErrorBody> {
  expect(response.status).to.equal(status);
  expect(response.headers.get('content-type')).to.match(/^application\/json/);
  expect(response.headers.get('cache-control')).to.equal('no-store');
  const body = (await response.json()) as ErrorBody;
  expect(body.error).to.equal(error);
  return body;
}

describe('oauth2: token endpoint errors (RFC 6749 §5.2)', () => {
  const harness = useOAuth2App();

  it('refuses a wrong secret with invalid_client, by Basic header and by form fields', async () => {
    const client = await harness.client();
    const { code } = await authorize(harness.app, client);
    for (const auth of ['basic', 'post'] as const) {
      const response = await requestToken(harness.app, { code, client: { ...client, clientSecret: 'wrong' }, auth });
      await expectError(response, 401, 'invalid_client');
    }
    const basic = await requestToken(harness.app, { code, client: { ...client, clientSecret: 'wrong' } });
    expect(basic.headers.get('www-authenticate')).to.match(/^Basic /);
    // the code was not spent by the failed attempts
    expect((await requestToken(harness.app, { code, client })).status).to.equal(200);
  });

  it('requires redirect_uri and compares it exactly', async () => {
    const client = await harness.client();
    const { code } = await authorize(harness.app, client);
    const missing = await expectError(
      await requestToken(harness.app, { code, client, form: { redirect_uri: undefined } }),
      400,
      'invalid_request',
    );
    expect(missing.error_description).to.contain('redirect_uri');
    await expectError(
      await requestToken(harness.app, { code, client, form: { redirect_uri: `${client.redirectUri}/` } }),
      400,
      'invalid_grant',
    );
    await expectError(
      await requestToken(harness.app, { code, client, form: { redirect_uri: client.redirectUri.toUpperCase() } }),
      400,
      'invalid_grant',
    );
    expect((await requestToken(harness.app, { code, client })).status).to.equal(200);
  });

  it('binds a code to the client it was issued to', async () => {
    const owner = await harness.client();
    const other = await harness.client({ redirectUris: [owner.redirectUri] });
    const { code } = await authorize(harness.app, owner);
    await expectError(await requestToken(harness.app, { code, client: other }), 400, 'invalid_grant');
  });

  it('accepts a code once; a second redemption fails and revokes the first token (RFC 6749 §4.1.2)', async () => {
    const client = await harness.client();
    const { code } = await authorize(harness.app, client);
    const first = await requestToken(harness.app, { code, client });
    expect(first.status).to.equal(200);
    const token = (await first.json()) as TokenBody;
    expect((await readResources(harness.app, token.access_token)).status).to.equal(200);

    await expectError(await requestToken(harness.app, { code, client }), 400, 'invalid_grant');
    const after = await readResources(harness.app, token.access_token);
    expect(after.status).to.equal(401);
    expect(after.headers.get('www-authenticate')).to.contain('error="invalid_token"');
  });

  it('keeps a code valid for 10 minutes and no longer', async () => {
    const client = await harness.client();
    const early = await authorize(harness.app, client);
    const late = await authorize(harness.app, client);
    harness.clock.advance(590);
    expect((await requestToken(harness.app, { code: early.code, client })).status).to.equal(200);
    harness.clock.advance(11);
    await expectError(await requestToken(harness.app, { code: late.code, client }), 400, 'invalid_grant');
  });

  it('issues no token for an authorization without a passed verification', async () => {
    const client = await harness.client();
    const { code } = await authorize(harness.app, client, { verification: { verified: false } });
    await expectError(await requestToken(harness.app, { code, client }), 400, 'invalid_grant');
  });

  it('rejects unsupported grant types and missing codes', async () => {
    const client = await harness.client();
    await expectError(
      await requestToken(harness.app, { code: 'x', client, form: { grant_type: 'client_credentials' } }),
      400,
      'unsupported_grant_type',
    );
    await expectError(await requestToken(harness.app, { code: 'unknown-code', client }), 400, 'invalid_grant');
    await expectError(
      await requestToken(harness.app, { code: 'x', client, form: { code: undefined } }),
      400,
      'invalid_request',
    );
  });

  describe('PKCE (optional, S256 only, enforced when sent)', () => {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');

    it('enforces a sent S256 challenge at the token endpoint', async () => {
      const client = await harness.client();
      const { code } = await authorize(harness.app, client, {
        query: { code_challenge: challenge, code_challenge_method: 'S256' },
      });
      await expectError(await requestToken(harness.app, { code, client }), 400, 'invalid_grant');
      await expectError(
        await requestToken(harness.app, {
          code,
          client,
          form: { code_verifier: randomBytes(32).toString('base64url') },
        }),
        400,
        'invalid_grant',
      );
      expect((await requestToken(harness.app, { code, client, form: { code_verifier: verifier } })).status).to.equal(
        200,
      );
    });

    it('refuses the plain method at the authorization endpoint, back on the redirect_uri', async () => {
      const client = await harness.client();
      const response = await fetch(
        authorizationUrl(harness.app.url, client, 'checker', {
          response_type: undefined,
          scope: undefined,
          code_challenge: verifier,
          code_challenge_method: 'plain',
          state: 's1',
        }),
        { redirect: 'manual' },
      );
      expect(response.status).to.equal(303);
      const callback = new URL(response.headers.get('location') ?? '');
      expect(callback.searchParams.get('error')).to.equal('invalid_request');
      expect(callback.searchParams.get('state')).to.equal('s1');
    });
  });
});
