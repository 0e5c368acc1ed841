import { expect } from 'chai';
import { ConfigError } from '../../lib/config/settings.js';
import type { Website } from '../../lib/websites/index.js';
import { startTestApp, useApp } from '../helpers/app.js';
import { createClientFixture, createWebmasterFixture, type WebmasterFixture } from '../helpers/fixtures.js';
import { apiClient, expectError, request, snapshot } from './api.js';

describe('External API: error responses', () => {
  const app = useApp();
  let webmaster: WebmasterFixture;
  let websiteId: number;

  before(async () => {
    webmaster = await createWebmasterFixture(app.provider.runtime);
    websiteId = (await createClientFixture(app.provider.runtime, webmaster.id, { environment: 'LIVE' })).websiteId;
  });

  const call = (method: string, path: string, options: Parameters<typeof request>[3] = {}) =>
    request(app.url, method, path, { token: webmaster.apiToken, ...options });

  it('answers 404 in the error shape for unknown paths under /external, with or without a token', async () => {
    for (const path of [
      '/external',
      '/external/',
      '/external/websites',
      '/external/website/1/keys/live',
      '/external/website/1/oauth2/live/rotate',
      '/external/v1/website',
    ]) {
      expectError(await call('GET', path), 404);
      expectError(await request(app.url, 'GET', path), 404);
    }
  });

  it('answers 405 with Allow for a method the path does not take', async () => {
    const cases: Array<[string, string, string[]]> = [
      ['DELETE', '/external/website', ['GET', 'POST']],
      ['PUT', `/external/website/${websiteId}`, ['GET', 'PATCH']],
      ['POST', `/external/website/${websiteId}/key/live`, ['GET']],
      ['GET', `/external/website/${websiteId}/oauth2/live/regenerate`, ['PATCH']],
      ['DELETE', `/external/website/${websiteId}/oauth2/live`, ['GET', 'POST', 'PATCH']],
    ];
    for (const [method, path, allowed] of cases) {
      const response = await call(method, path);
      expectError(response, 405);
      const allow = (response.headers.get('allow') ?? '').split(/, */);
      expect(allow, `${method} ${path}`).to.include.members(allowed);
      expect(allow).to.not.include(method);
    }
  });

  it('answers 400 to malformed JSON and 415 to other content types, changing nothing', async () => {
    const before = await snapshot(app.database.db);
    for (const raw of ['{', '{"name":', "{'name':'x'}", '{"name":"x",}', 'name=x', '\u0000']) {
      const message = expectError(
        await call('PATCH', `/external/website/${websiteId}`, { raw, headers: { 'Content-Type': 'application/json' } }),
        400,
      );
      expect(message).to.match(/JSON/);
    }
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
    ]) {
      expectError(
        await call('POST', '/external/website', {
          raw: '{"name":"x","domain":"x.example.com"}',
          headers: { 'Content-Type': type },
        }),
        415,
      );
    }
    expect(await snapshot(app.database.db)).to.equal(before);
  });

  it('answers 413 to a body over 64 KiB, changing nothing', async () => {
    const before = await snapshot(app.database.db);
    const raw = JSON.stringify({
      name: 'x',
      domain: 'x.example.com',
      regions: Array.from({ length: 20000 }, () => 'DE'),
    });
    expectError(await call('POST', '/external/website', { raw, headers: { 'Content-Type': 'application/json' } }), 413);
    expect(await snapshot(app.database.db)).to.equal(before);
  });

  it('answers 500 in the error shape without details when something unexpected fails', async () => {
    const { sealer } = app.provider.runtime;
    const unseal = sealer.unseal.bind(sealer);
    sealer.unseal = () => {
      throw new Error('sealing key mismatch at /secret/path');
    };
    try {
      const response = await call('GET', `/external/website/${websiteId}/oauth2/live`);
      const message = expectError(response, 500);
      expect(message).to.not.contain('sealing').and.not.contain('/secret/path').and.not.contain(' at ');
    } finally {
      sealer.unseal = unseal;
    }
  });

  it('leaves paths outside /external to the other surfaces', async () => {
    const response = await fetch(`${app.url}/externalx`);
    expect(response.headers.get('content-type') ?? '').to.not.match(/json/);
  });
});

describe('External API: rate limits', () => {
  it('answers 429 with Retry-After once a token has spent its requests, other tokens unaffected', async () => {
    const app = await startTestApp({ env: { EXTERNAL_API_RATE_LIMIT_PER_TOKEN: '5' } });
    try {
      const first = await createWebmasterFixture(app.provider.runtime);
      const second = await createWebmasterFixture(app.provider.runtime);
      const api = apiClient(app.url, first.apiToken);
      for (let index = 0; index < 5; index += 1) expect((await api.get('/website')).status).to.equal(200);
      const limited = await api.post<Website>('/website', { name: 'x', domain: 'x.example.com' });
      expect(expectError(limited, 429)).to.contain('Too many requests');
      expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 60);
      expect(await app.database.db('websites').count<Array<{ count: number }>>('id as count')).to.deep.equal([
        { count: 0 },
      ]);
      expect((await apiClient(app.url, second.apiToken).get('/website')).status).to.equal(200);
    } finally {
      await app.close();
    }
  });

  it('answers 429 per address, counting requests without a valid token too', async () => {
    const app = await startTestApp({ env: { EXTERNAL_API_RATE_LIMIT_PER_IP: '4' } });
    try {
      const { apiToken } = await createWebmasterFixture(app.provider.runtime);
      for (let index = 0; index < 4; index += 1)
        expectError(await request(app.url, 'GET', '/external/website', { token: 'avk_wrong' }), 401);
      const limited = await request(app.url, 'GET', '/external/website', { token: apiToken });
      expectError(limited, 429);
      expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
    } finally {
      await app.close();
    }
  });

  it('refuses to start with an invalid limit setting, naming it', async () => {
    for (const value of ['0', 'many', '-5', '1.5']) {
      let failure: unknown;
      try {
        await (await startTestApp({ env: { EXTERNAL_API_RATE_LIMIT_PER_TOKEN: value } })).close();
      } catch (error) {
        failure = error;
      }
      expect(failure, value).to.be.instanceOf(ConfigError);
      expect((failure as Error).message).to.contain('EXTERNAL_API_RATE_LIMIT_PER_TOKEN');
    }
  });
});
