import { expect } from 'chai';
import { createLogger } from '../../lib/log.js';
import { openDatabase, type Database } from '../../lib/store/database.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { frozenDatabase } from '../helpers/frozen-peer.js';
import { authorizationUrl } from '../helpers/relying-party.js';

const CLIENT = { clientId: 'website-client', clientSecret: 'not-checked', redirectUri: 'https://shop.example.test/cb' };

/** Requests of each surface that need the database, as a visitor, a website's server and a webmaster send them. */
const REQUESTS: Array<{ name: string; path: string; init?: RequestInit }> = [
  { name: 'the authorization endpoint (checker)', path: authorizationUrl('', CLIENT, 'checker') },
  { name: 'the authorization endpoint (login)', path: authorizationUrl('', CLIENT, 'login') },
  {
    name: 'the token endpoint',
    path: '/v1/oauth2/token',
    init: {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('website-client:secret').toString('base64')}`,
      },
      body: 'grant_type=authorization_code&code=abc&redirect_uri=https%3A%2F%2Fshop.example.test%2Fcb',
    },
  },
  { name: 'Resources', path: '/v1/oauth2/resources', init: { headers: { authorization: 'Bearer some-token' } } },
  { name: 'the External API', path: '/external/website/1', init: { headers: { authorization: 'Bearer apt_unknown' } } },
  { name: 'the requirement', path: '/v1/requirement?client_id=website-client' },
];

/**
 * A database that hangs while a new connection opens (it accepts the TCP connection and never answers the start-up
 * message): the connection attempt gives up after DB_ACQUIRE_TIMEOUT_MS, and every surface answers the documented
 * 503 with Retry-After, never a 500.
 */
describe('a database that hangs while a new connection opens', function () {
  this.timeout(60_000);
  let frozen: Awaited<ReturnType<typeof frozenDatabase>>;
  let db: Database;
  let app: TestApp;
  before(async () => {
    frozen = await frozenDatabase();
    db = await openDatabase({
      databaseUrl: frozen.url,
      limits: { poolMax: 2, acquireTimeoutMs: 300, statementTimeoutMs: 1000 },
      log: createLogger('silent'),
    });
    app = await startTestApp({ db, databaseUrl: frozen.url, requestTimeoutMs: 20_000 });
  });
  after(async () => {
    await app?.close();
    await db?.destroy().catch(() => undefined);
    await frozen?.close();
  });

  it('answers 503 to requests that arrive while earlier ones wait for a connection', async () => {
    // Each request's wait starts at its own time: some end on the pool's acquire timeout, some on the driver's
    // connection timeout of an attempt another request started.
    const statuses = await Promise.all(
      Array.from({ length: 12 }, async (_, index) => {
        await new Promise((resolve) => setTimeout(resolve, index * 60));
        const { path, init } = REQUESTS[index % REQUESTS.length]!;
        const response = await fetch(`${app.url}${path}`, { ...init, redirect: 'manual' });
        return `${response.status} ${response.headers.get('retry-after') ?? '-'}`;
      }),
    );
    expect(statuses).to.deep.equal(statuses.map(() => `503 ${statuses[0]!.split(' ')[1]}`));
    expect(statuses[0]).to.match(/^503 \d+$/);
  });

  for (const { name, path, init } of REQUESTS) {
    it(`${name} answers 503 with Retry-After`, async () => {
      const response = await fetch(`${app.url}${path}`, { ...init, redirect: 'manual' });
      const body = await response.text();
      expect(response.status, body).to.equal(503);
      expect(Number(response.headers.get('retry-after'))).to.be.greaterThan(0);
      // The OAuth2 back channel's documented shape (RFC 6749 §5.2 / RFC 6750).
      if (path.startsWith('/v1/oauth2/token') || path.startsWith('/v1/oauth2/resources'))
        expect(JSON.parse(body)).to.include({ error: 'temporarily_unavailable' });
    });
  }
});
