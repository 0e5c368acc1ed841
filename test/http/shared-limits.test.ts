import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer, connect } from 'node:net';
import { expect } from 'chai';
import { keptLogger } from '../helpers/log.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

/** The machine's Redis (.ci/run starts it when it is down). */
const MACHINE_REDIS = 'redis://127.0.0.1:6379';

const reachable = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket
      .once('connect', () => {
        socket.destroy();
        resolve(true);
      })
      .once('error', () => resolve(false));
  });

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** A Redis of this test's own, which it can stop and start again (the machine's is shared with everyone). */
async function ownRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let tries = 0; tries < 100 && !(await reachable(port)); tries++)
    await new Promise((resolve) => setTimeout(resolve, 50));
  return child;
}

const stopped = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once('exit', () => resolve()).kill('SIGKILL');
  });

const mentions = (log: { lines: string[] }, text: string): number =>
  log.lines.filter((line) => line.includes(text)).length;

const waitFor = async (condition: () => boolean, what: string): Promise<void> => {
  for (let tries = 0; tries < 200 && !condition(); tries++) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(condition(), what).to.equal(true);
};

/** Statuses of `count` requests from one address, spread round-robin over the instances. */
async function roundRobin(
  apps: TestApp[],
  count: number,
  request: (app: TestApp) => Promise<Response>,
): Promise<number[]> {
  const statuses: number[] = [];
  // A few at a time: concurrency as a proxy would bring it, and the whole run well inside the limits' 60-second window.
  for (let start = 0; start < count; start += 20) {
    const batch = Array.from(
      { length: Math.min(20, count - start) },
      (_, index) => apps[(start + index) % apps.length]!,
    );
    statuses.push(
      ...(await Promise.all(
        batch.map(async (app) => {
          const response = await request(app);
          await response.arrayBuffer();
          return response.status;
        }),
      )),
    );
  }
  return statuses;
}
/** The operations listener's /metrics of an app, as Prometheus scrapes it. */
async function scrape(app: TestApp): Promise<string> {
  const handle = app.provider.operations.callback();
  const server = createHttpServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await (await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/metrics`)).text();
  } finally {
    server.close();
  }
}
const allowed = (statuses: number[]): number => statuses.filter((status) => status !== 429).length;
const requirement = (app: TestApp): Promise<Response> => fetch(`${app.url}/v1/requirement?key=pk_nobody`);

describe('rate limits shared across instances through Redis (REDIS_URL)', function () {
  this.timeout(180_000);

  describe("with the machine's Redis", () => {
    const apps: TestApp[] = [];
    before(async function () {
      if (!(await reachable(6379))) {
        console.log('    skipped: no Redis on 127.0.0.1:6379 (.ci/run starts one: redis-server --daemonize yes)');
        this.skip();
      }
      const env = {
        REDIS_URL: MACHINE_REDIS,
        REDIS_KEY_PREFIX: `test-${randomBytes(6).toString('hex')}:`,
        REQUIREMENT_RATE_LIMIT_PER_IP: '5',
      };
      apps.push(await startTestApp({ env }), await startTestApp({ env }));
    });
    after(() => Promise.all(apps.map((app) => app.close())));

    it('gives one address the documented 600 authorizations a minute through two instances, not twice that', async () => {
      // An authorization request spends its point before anything else is looked at.
      const statuses = await roundRobin(apps, 700, (app) =>
        fetch(`${app.url}/v1/oauth2/checker`, { redirect: 'manual' }),
      );
      expect(allowed(statuses)).to.equal(600);
      expect(statuses.slice(-50)).to.satisfy((last: number[]) => last.every((status) => status === 429));
    });

    it('shares a configured limit the same way, whichever instance is asked', async () => {
      expect(allowed(await roundRobin(apps, 12, requirement))).to.equal(5);
      expect((await requirement(apps[1]!)).status).to.equal(429);
    });
  });

  describe('when Redis does not answer', () => {
    let port: number;
    let redis: ChildProcess | undefined;
    const logs = [keptLogger(), keptLogger()];
    const apps: TestApp[] = [];
    before(async function () {
      port = await freePort();
      redis = await ownRedis(port);
      if (!(await reachable(port))) {
        console.log('    skipped: redis-server could not be started (Debian: apt-get install -y redis-server)');
        this.skip();
      }
      const env = { REDIS_URL: `redis://127.0.0.1:${port}`, REQUIREMENT_RATE_LIMIT_PER_IP: '3' };
      for (const log of logs) apps.push(await startTestApp({ env, logger: log }));
    });
    after(async () => {
      await Promise.all(apps.map((app) => app.close()));
      if (redis) await stopped(redis);
    });

    it("counts in each instance's memory meanwhile, says so once per outage, and shares again once Redis is back", async () => {
      expect(allowed(await roundRobin(apps, 8, requirement)), 'shared while Redis runs').to.equal(3);

      await stopped(redis!);
      // Neither failing open nor closed: each instance allows the limit on its own, no request fails or waits on Redis.
      for (const app of apps) {
        const statuses = await roundRobin([app], 6, requirement);
        expect(
          statuses.filter((status) => status >= 500),
          'no server error',
        ).to.deep.equal([]);
        expect(allowed(statuses), 'per instance during the outage').to.equal(3);
      }
      for (const log of logs)
        expect(mentions(log, 'Redis does not answer'), 'once per outage, not per request').to.equal(1);

      redis = await ownRedis(port);
      for (const log of logs) await waitFor(() => mentions(log, 'Redis answers again') === 1, 'the recovery is logged');
      expect(
        allowed(await roundRobin(apps, 8, requirement)),
        'shared again: a fresh Redis, one limit for both',
      ).to.equal(3);
      for (const log of logs) expect(mentions(log, 'Redis does not answer'), 'still one outage').to.equal(1);
    });

    it('keeps requests at their usual latency while Redis accepts and never answers, and shares again once it answers', async () => {
      const proxy = await startTcpProxy(`redis://127.0.0.1:${port}`);
      const log = keptLogger();
      const app = await startTestApp({
        env: { REDIS_URL: proxy.url, REQUIREMENT_RATE_LIMIT_PER_IP: '1000' },
        logger: log,
      });
      try {
        expect(await roundRobin([app], 3, requirement)).to.deep.equal([404, 404, 404]);
        expect(app.provider.runtime.rateLimits.fallbackActive()).to.equal(false);
        expect(proxy.silence()).to.be.above(0);
        // The first request waits for the command timeout (0.5 s) and is counted in memory; it opens the breaker.
        expect(await roundRobin([app], 1, requirement)).to.deep.equal([404]);
        expect(app.provider.runtime.rateLimits.fallbackActive(), 'the breaker is open').to.equal(true);
        expect(await scrape(app)).to.match(/^age_provider_redis_fallback_active 1$/m);
        // Then none asks Redis: 40 requests one after another, which would wait 20 s for Redis, take what they take.
        const started = Date.now();
        for (let index = 0; index < 40; index++) expect((await requirement(app)).status).to.equal(404);
        expect(Date.now() - started, 'no request waited for Redis').to.be.below(8000);
        expect(mentions(log, 'Redis does not answer')).to.equal(1);
        // The hang ends (the connection resets, the reconnection is answered): a probe closes the breaker.
        proxy.cutSilenced();
        await waitFor(() => mentions(log, 'Redis answers again') === 1, 'the recovery is logged');
        expect(app.provider.runtime.rateLimits.fallbackActive()).to.equal(false);
        expect(await scrape(app)).to.match(/^age_provider_redis_fallback_active 0$/m);
      } finally {
        await app.close();
        await proxy.close();
      }
    });

    it('starts, and serves with per-instance limits, when Redis cannot be reached at all', async () => {
      const log = keptLogger();
      const app = await startTestApp({
        env: { REDIS_URL: `redis://127.0.0.1:${await freePort()}`, REQUIREMENT_RATE_LIMIT_PER_IP: '2' },
        logger: log,
      });
      try {
        expect(await roundRobin([app], 4, requirement)).to.deep.equal([404, 404, 429, 429]);
        expect(mentions(log, 'Redis does not answer')).to.equal(1);
      } finally {
        await app.close();
      }
    });
  });
});
