import { expect } from 'chai';
import { randomToken } from '../../lib/security/hashing.js';
import { issueApiToken } from '../../lib/webmasters/api-tokens.js';
import { useApp } from '../helpers/app.js';
import {
  createClientFixture,
  createWebmasterFixture,
  type WebmasterFixture,
  TEST_ORIGIN,
} from '../helpers/fixtures.js';
import { everyOperation, expectError, send, snapshot } from './api.js';

describe('External API: authentication', () => {
  const app = useApp();
  let webmaster: WebmasterFixture;
  let websiteId: number;

  before(async () => {
    webmaster = await createWebmasterFixture(app.provider.runtime);
    websiteId = (await createClientFixture(app.provider.runtime, webmaster.id, { environment: 'LIVE' })).websiteId;
  });

  async function expectUnauthorized(
    token: string | undefined,
    headers: Record<string, string> = {},
  ): Promise<string[]> {
    const before = await snapshot(app.database.db);
    const messages: string[] = [];
    for (const call of everyOperation(websiteId)) {
      const response = await send(app.url, call, token, headers);
      expect(response.status, `${call.name}: ${JSON.stringify(response.body)}`).to.equal(401);
      messages.push(expectError(response, 401));
      expect(response.headers.get('www-authenticate')).to.equal('Bearer');
    }
    expect(await snapshot(app.database.db), 'nothing changed').to.equal(before);
    return messages;
  }

  it('answers 401 to every operation without a token', async () => {
    expect((await expectUnauthorized(undefined))[0]).to.contain('Missing');
  });

  it('answers 401 to every operation with a malformed Authorization header', async () => {
    for (const header of [
      'Basic dXNlcjpwYXNz',
      'Bearer',
      'Bearer ',
      `Bearer ${webmaster.apiToken} extra`,
      webmaster.apiToken,
      `Token ${webmaster.apiToken}`,
    ]) {
      await expectUnauthorized(undefined, { Authorization: header });
    }
  });

  it('answers 401 to every operation with a wrong token', async () => {
    for (const token of [
      randomToken(32, 'avk_'),
      'avk_short',
      webmaster.apiToken.slice(0, -1),
      `${webmaster.apiToken}x`,
      webmaster.apiToken.toUpperCase(),
    ]) {
      expect((await expectUnauthorized(token))[0]).to.contain('Invalid');
    }
  });

  it('answers 401 to a revoked token and accepts its replacement', async () => {
    const other = await createWebmasterFixture(app.provider.runtime);
    const { websiteId: otherWebsite } = await createClientFixture(app.provider.runtime, other.id);
    const replacement = await issueApiToken(app.database.db, app.provider.runtime.clock, other.id, TEST_ORIGIN);
    const call = { name: 'retrieve website', method: 'GET' as const, path: `/website/${otherWebsite}` };
    expectError(await send(app.url, call, other.apiToken), 401);
    expect((await send(app.url, call, replacement)).status).to.equal(200);
  });

  it('accepts the scheme in any case and records when the token was last used', async () => {
    const response = await send(app.url, everyOperation(websiteId)[0]!, undefined, {
      Authorization: `bearer ${webmaster.apiToken}`,
    });
    expect(response.status).to.equal(200);
    const row = await app.database
      .db('api_tokens')
      .where('webmaster_id', webmaster.id)
      .whereNull('revoked_at')
      .first<{ last_used_at: Date | null }>();
    expect(row.last_used_at).to.be.instanceOf(Date);
  });

  it('serves openapi.json without a token', async () => {
    const response = await fetch(`${app.url}/external/openapi.json`);
    expect(response.status).to.equal(200);
    expect(((await response.json()) as { openapi: string }).openapi).to.equal('3.1.0');
  });
});
