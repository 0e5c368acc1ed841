import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import type { ClientFixture } from '../helpers/fixtures.js';
import {
  authorizationUrl,
  authorize,
  issueToken,
  type OAuth2TestApp,
  startOAuth2AppWithCallers,
  useOAuth2App,
} from '../oauth2/helpers/oauth2.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/**
 * Every surface while its database is unreachable: the pool is closed under the running app, so
 * every query fails the way a stopped server makes it fail (knex: no connection can be acquired).
 */
describe('database outage: every surface answers 503 with Retry-After in its own shape', function () {
  this.timeout(120_000);
  let harness: OAuth2TestApp;
  let client: ClientFixture;
  let apiToken: string;
  let accessToken: string;
  let code: string;
  let url: string;
  before(async () => {
    ({ harness, client, apiToken } = await startOAuth2AppWithCallers());
    url = harness.app.url;
    accessToken = (await issueToken(harness.app, client)).access_token;
    ({ code } = await authorize(harness.app, client));
    await harness.app.provider.db.destroy();
  });
  after(() => harness.app.close());

  function expectRetryAfter(response: Response): void {
    expect(response.status).to.equal(503);
    expect(Number(response.headers.get('retry-after'))).to.be.greaterThan(0);
  }

  async function expectOAuthJson(response: Response): Promise<void> {
    expectRetryAfter(response);
    expect(response.headers.get('content-type')).to.match(/^application\/json/);
    expect(await response.json()).to.include({ error: 'temporarily_unavailable' });
  }

  async function expectVisitorPage(response: Response, retryPath: string): Promise<void> {
    expectRetryAfter(response);
    expect(response.headers.get('content-type')).to.match(/^text\/html/);
    const html = await response.text();
    expect(html).to.include('Service temporarily unavailable');
    expect(html).to.include(`href="${retryPath.replace(/&/g, '&amp;')}"`);
  }

  it('answers the back channel in RFC 6749 JSON: token, Resources, introspection, revocation', async () => {
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`;
    const post = (path: string, body: string) =>
      fetch(`${url}${path}`, { method: 'POST', headers: { ...FORM, authorization: basic }, body });
    await expectOAuthJson(
      await post(
        '/v1/oauth2/token',
        `grant_type=authorization_code&code=${code}&redirect_uri=${encodeURIComponent(client.redirectUri)}`,
      ),
    );
    await expectOAuthJson(
      await post(
        '/api/oauth2/token',
        `grant_type=authorization_code&code=${code}&redirect_uri=${encodeURIComponent(client.redirectUri)}`,
      ),
    );
    await expectOAuthJson(
      await fetch(`${url}/v1/oauth2/resources`, { headers: { authorization: `Bearer ${accessToken}` } }),
    );
    await expectOAuthJson(await post('/v1/oauth2/token/introspection', `token=${accessToken}`));
    await expectOAuthJson(await post('/v1/oauth2/token/revocation', `token=${accessToken}`));
  });

  it('answers the requirement in its JSON shape', async () => {
    await expectOAuthJson(await fetch(`${url}/v1/requirement?key=pk_test_${'k'.repeat(32)}`));
  });

  it('answers the External API in its error shape', async () => {
    const response = await fetch(`${url}/external/website`, { headers: { authorization: `Bearer ${apiToken}` } });
    expectRetryAfter(response);
    expect(await response.json()).to.deep.equal({
      message: 'The service cannot reach its database right now. Retry in a few seconds.',
      error: 'Service Unavailable',
      statusCode: 503,
    });
  });

  it('shows the visitor the outage page with a link to try the same address again', async () => {
    const path = authorizationUrl('', client);
    await expectVisitorPage(await fetch(`${url}${path}`, { redirect: 'manual' }), path);
  });

  it('shows the webmaster the same page on the platform', async () => {
    const response = await fetch(`${url}/platform/account`, {
      headers: { cookie: 'ap_platform=some-session' },
      redirect: 'manual',
    });
    await expectVisitorPage(response, '/platform/account');
  });
});

describe("request deadline: a request past REQUEST_TIMEOUT_MS is an outage in its surface's shape", function () {
  this.timeout(120_000);
  const harness = useOAuth2App({ REQUEST_TIMEOUT_MS: '3000' });

  it('answers the back channel 503 temporarily_unavailable JSON, not the visitor page', async () => {
    const client = await harness.client();
    const { access_token: accessToken } = await issueToken(harness.app, client);
    // Introspection reads the token through the provider's adapter (Resources reads it in a statement of its own).
    const adapter = harness.app.provider.provider.AccessToken.adapter;
    const find = adapter.find.bind(adapter);
    adapter.find = async (id) => {
      await delay(8000);
      return find(id);
    };
    try {
      const basic = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`;
      const response = await fetch(`${harness.app.url}/v1/oauth2/token/introspection`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: `token=${accessToken}`,
      });
      expect(response.status).to.equal(503);
      expect(Number(response.headers.get('retry-after'))).to.be.greaterThan(0);
      expect(await response.json()).to.include({ error: 'temporarily_unavailable' });
    } finally {
      adapter.find = find;
    }
  });
});
