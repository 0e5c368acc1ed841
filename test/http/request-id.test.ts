import { expect } from 'chai';
import { createLogger } from '../../lib/log.js';
import { startTestApp, useApp, type TestApp } from '../helpers/app.js';
import { createClientFixture, createWebmasterFixture } from '../helpers/fixtures.js';
import { authorize, requestToken } from '../oauth2/helpers/oauth2.js';

describe('request ids: every answer carries one, and every 5xx is logged with it', function () {
  this.timeout(120_000);
  let app: TestApp;
  const lines: Array<Record<string, unknown>> = [];
  before(async () => {
    app = await startTestApp({
      logger: createLogger('warn', (line) => lines.push(JSON.parse(line) as Record<string, unknown>)),
    });
  });
  after(() => app.close());

  it('answers X-Request-Id, a fresh one per request (a client cannot choose it without a trusted proxy)', async () => {
    const first = await fetch(`${app.url}/healthz`, { headers: { 'X-Request-Id': 'chosen-by-client' } });
    const second = await fetch(`${app.url}/healthz`);
    const ids = [first.headers.get('x-request-id'), second.headers.get('x-request-id')];
    expect(ids[0]).to.match(/^[0-9a-f-]{36}$/);
    expect(ids[1])
      .to.match(/^[0-9a-f-]{36}$/)
      .and.not.equal(ids[0]);
  });

  it("logs a failure inside oidc-provider's own token route once, with the request id and its stack", async () => {
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    const client = await createClientFixture(app.provider.runtime, webmaster.id);
    const { code } = await authorize(app, client);
    const adapter = app.provider.provider.AccessToken.adapter;
    const upsert = adapter.upsert.bind(adapter);
    adapter.upsert = () => Promise.reject(new Error('injected token store failure'));
    let response: Response;
    try {
      response = await requestToken(app, { code, client });
    } finally {
      adapter.upsert = upsert;
    }
    expect(response.status).to.equal(500);
    const requestId = response.headers.get('x-request-id');
    const logged = lines.filter((line) => line.requestId === requestId);
    expect(logged.map((line) => line.message)).to.deep.equal(['request failed']);
    expect(String(logged[0]?.error))
      .to.include('injected token store failure')
      .and.match(/\n\s+at /);
  });
});

describe('request ids behind a trusted proxy', function () {
  this.timeout(60_000);
  const app = useApp({ trustProxy: true });

  it("keeps the proxy's plain X-Request-Id and replaces anything else", async () => {
    expect(
      (await fetch(`${app.url}/healthz`, { headers: { 'X-Request-Id': 'lb-42.a' } })).headers.get('x-request-id'),
    ).to.equal('lb-42.a');
    expect(
      (await fetch(`${app.url}/healthz`, { headers: { 'X-Request-Id': 'x'.repeat(200) } })).headers.get('x-request-id'),
    ).to.match(/^[0-9a-f-]{36}$/);
  });
});
