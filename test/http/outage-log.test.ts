import { expect } from 'chai';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { createLogger } from '../../lib/log.js';
import { collapseRepeats, MAX_COUNTED_KINDS } from '../../lib/log-repeats.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../helpers/fixtures.js';
import { authorizationUrl } from '../helpers/relying-party.js';

type Line = Record<string, unknown> & { level: string; message: string };

/** Everything the app logs, parsed, with the proof that each entry was one line. */
function capture(): { lines: Line[]; logger: ReturnType<typeof createLogger> } {
  const lines: Line[] = [];
  return {
    lines,
    logger: createLogger('info', (text) => {
      expect(text.trimEnd().split('\n'), text).to.have.length(1);
      lines.push(JSON.parse(text) as Line);
    }),
  };
}

const problems = (lines: Line[]): Line[] => lines.filter((line) => line.level === 'warn' || line.level === 'error');
const REQUEST_LINE = 'request failed: the database is unreachable or too slow';
const repeatsOf = (lines: Line[], message: string): number =>
  lines.filter((line) => line.like === message).reduce((sum, line) => sum + Number(line.repeats), 0);

/** A token request of a known client (its code is made up: the client lookup is what reads the database first). */
function tokenRequest(url: string, client: ClientFixture): Promise<Response> {
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`;
  return fetch(`${url}/v1/oauth2/token`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=authorization_code&code=abc',
  });
}

/** One request to each surface that reads the database: the back channel, the External API, a visitor page, the platform. */
function everySurface(url: string, client: ClientFixture, apiToken: string): Array<Promise<Response>> {
  return [
    tokenRequest(url, client),
    fetch(`${url}/v1/oauth2/resources`, { headers: { authorization: 'Bearer some-token' } }),
    fetch(`${url}/external/website`, { headers: { authorization: `Bearer ${apiToken}` } }),
    fetch(`${url}/v1/requirement?key=${client.keys.TEST}`),
    fetch(authorizationUrl(url, client), { redirect: 'manual' }),
    fetch(`${url}/platform/account`, { headers: { cookie: 'ap_platform=some-session' }, redirect: 'manual' }),
  ];
}

/** `rounds` rounds of one request per surface, all answered 503 (the outage page or JSON, with Retry-After). */
async function failEverySurface(url: string, client: ClientFixture, apiToken: string, rounds: number): Promise<number> {
  let failed = 0;
  for (let round = 0; round < rounds; round += 1) {
    for (const response of await Promise.all(everySurface(url, client, apiToken))) {
      expect(response.status, `${response.url} during the outage`).to.equal(503);
      expect(response.headers.get('retry-after')).to.match(/^\d+$/);
      await response.arrayBuffer();
      failed += 1;
    }
  }
  return failed;
}

describe('the log during a database outage: one line per kind of failure, repeats counted, no stacks', function () {
  this.timeout(120_000);

  it('collapses repeats of a line into one summary per window, and starts afresh after a quiet window', async () => {
    const { lines, logger } = capture();
    const repeats = collapseRepeats(logger, 200);
    for (let i = 0; i < 5; i += 1) repeats.write('error', 'outage', 'database down', { attempt: i });
    repeats.logger.warn('driver: connection refused', { port: 1 });
    repeats.logger.warn('driver: connection refused', { port: 1 });
    repeats.logger.warn('driver: connection refused', { port: 2 });
    expect(lines.map((line) => line.message)).to.deep.equal([
      'database down',
      'driver: connection refused',
      'driver: connection refused',
    ]);
    expect(lines[0]).to.include({ attempt: 0 });
    while (lines.length < 5) await delay(50);
    expect(lines.slice(3).map((line) => [line.level, line.like, line.repeats])).to.have.deep.members([
      ['error', 'database down', 4],
      ['warn', 'driver: connection refused', 1],
    ]);
    expect(lines[3]!.message).to.match(/^\d+ more like this in the last \d+ s$/);
    // Two windows without a repeat: the kind is forgotten, so the next one is a new outage and written in full.
    await delay(600);
    repeats.write('error', 'outage', 'database down', { attempt: 9 });
    repeats.close();
    expect(lines).to.have.length(6);
    expect(lines[5]).to.include({ message: 'database down', attempt: 9 });
  });

  it('counts at most a bounded number of kinds: past it, lines are written as they come', () => {
    const { lines, logger } = capture();
    const repeats = collapseRepeats(logger, 60_000);
    for (let kind = 0; kind < MAX_COUNTED_KINDS; kind += 1) repeats.write('warn', `kind ${kind}`, 'distinct', { kind });
    repeats.write('warn', 'one kind too many', 'uncounted', {});
    repeats.write('warn', 'one kind too many', 'uncounted', {});
    repeats.write('warn', 'kind 0', 'distinct', { kind: 0 });
    repeats.close();
    expect(lines.filter((line) => line.message === 'uncounted')).to.have.length(2);
    expect(lines.filter((line) => line.like === 'distinct')).to.deep.equal([lines.at(-1)]);
    expect(lines.length).to.equal(MAX_COUNTED_KINDS + 3);
  });

  it('the embedded database or the pool closed: many failed requests write one line, and the count is written at the close', async () => {
    const { lines, logger } = capture();
    const app = await startTestApp({ logger });
    let closed = false;
    try {
      const webmaster = await createWebmasterFixture(app.provider.runtime);
      const client = await createClientFixture(app.provider.runtime, webmaster.id);
      const before = lines.length;
      await app.provider.db.destroy();
      const failed = await failEverySurface(app.url, client, webmaster.apiToken, 10);
      const during = problems(lines.slice(before));
      expect(during.filter((line) => line.message === REQUEST_LINE)).to.have.length(1);
      expect(during.length, JSON.stringify(during)).to.be.at.most(4);
      for (const line of during) expect(JSON.stringify(line)).not.to.match(/\n\s+at /);
      await app.close();
      closed = true;
      expect(repeatsOf(lines, REQUEST_LINE)).to.equal(failed - 1);
    } finally {
      if (!closed) await app.close();
    }
  });

  it('an unexpected error is still logged once per request, with its stack', async () => {
    const { lines, logger } = capture();
    const app = await startTestApp({ logger });
    try {
      const webmaster = await createWebmasterFixture(app.provider.runtime);
      const client = await createClientFixture(app.provider.runtime, webmaster.id);
      const { clients } = app.provider.runtime;
      const get = clients.get.bind(clients);
      // A defect, not an outage: the client lookup behind the token endpoint breaks.
      clients.get = () => Promise.reject(new TypeError('injected defect'));
      let responses: Response[];
      try {
        responses = await Promise.all([1, 2, 3].map(() => tokenRequest(app.url, client)));
      } finally {
        clients.get = get;
      }
      const ids = responses.map((response) => response.headers.get('x-request-id'));
      for (const response of responses) expect(response.status).to.equal(500);
      for (const id of ids) {
        const logged = lines.filter((line) => line.requestId === id);
        expect(logged).to.have.length(1);
        expect(logged[0]).to.include({ message: 'request failed', status: 500 });
        expect(String(logged[0]!.error))
          .to.include('injected defect')
          .and.match(/\n\s+at /);
      }
    } finally {
      await app.close();
    }
  });
});

/** A TCP proxy in front of PostgreSQL that the test can take down (every connection cut, new ones refused) and bring back. */
async function databaseProxy(
  target: URL,
): Promise<{ url: string; down(): Promise<void>; up(): Promise<void>; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let server: Server;
  let port = 0;
  const listen = async () => {
    server = createServer((socket) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      for (const end of [socket, upstream]) {
        sockets.add(end);
        end.on('close', () => sockets.delete(end));
        end.on('error', () => undefined);
      }
      socket.pipe(upstream).pipe(socket);
      socket.on('close', () => upstream.destroy());
      upstream.on('close', () => socket.destroy());
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  };
  const down = async () => {
    const closing = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closing;
  };
  await listen();
  const url = new URL(target);
  url.host = `127.0.0.1:${port}`;
  return { url: url.toString(), down, up: listen, close: down };
}

describe("the log while PostgreSQL restarts: the driver's warnings are not repeated per request", function () {
  this.timeout(180_000);
  let database: TestDatabase | undefined;
  let app: TestApp | undefined;
  let proxy: Awaited<ReturnType<typeof databaseProxy>> | undefined;
  let client: ClientFixture;
  let apiToken: string;
  const { lines, logger } = capture();

  before(async function () {
    if (!process.env.DATABASE_URL) this.skip();
    database = await createTestDatabase();
    proxy = await databaseProxy(new URL(database.url!));
    // No database handed over: the app opens its pool and change feed on the proxy, with the driver's warnings in its log.
    app = await startTestApp({ logger, db: undefined, databaseUrl: proxy.url, dbAcquireTimeoutMs: 1000 });
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    apiToken = webmaster.apiToken;
    client = await createClientFixture(app.provider.runtime, webmaster.id);
  });
  after(async () => {
    await app?.close();
    await proxy?.close().catch(() => undefined);
    await database?.drop();
  });

  it('two restarts of the database, forty requests failed in each: a handful of lines in all, no stack', async () => {
    const { url } = app!;
    const before = lines.length;
    let failed = 0;
    for (let restart = 0; restart < 2; restart += 1) {
      await proxy!.down();
      failed += await failEverySurface(url, client, apiToken, 7);
      await proxy!.up();
      // Back: the same requests are answered again (the pool reconnects by itself).
      const response = await fetch(`${url}/external/website`, { headers: { authorization: `Bearer ${apiToken}` } });
      expect(response.status).to.equal(200);
    }
    const during = problems(lines.slice(before));
    expect(failed).to.equal(84);
    expect(during.length, JSON.stringify(during, null, 1)).to.be.at.most(10);
    for (const line of during) expect(JSON.stringify(line)).not.to.match(/\n\s+at /);
    const driver = during.filter((line) => line.message.startsWith('database: '));
    expect(new Set(driver.map((line) => line.message)).size, 'each driver warning once').to.equal(driver.length);
  });
});
