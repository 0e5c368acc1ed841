import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv, promisify } from 'node:util';
import { expect } from 'chai';
import { packageRoot } from '../../lib/paths.js';
import { cli, fromSources, serveProcess, type Program, type ServeProcess } from '../cli/run.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { describeFailure, wholeFlow, type FlowClient } from '../helpers/whole-flow.js';

const run = promisify(execFile);

/** The previous release: the first version heading of CHANGELOG.md and its `Commit:` line (docs/releasing.md). */
async function previousRelease(): Promise<{ version: string; commit: string }> {
  const changelog = await readFile(join(packageRoot, 'CHANGELOG.md'), 'utf8');
  const found = /^## (\d+\.\d+\.\d+) [^\n]*\n+Commit: `([0-9a-f]{40})`/m.exec(changelog);
  expect(found, "CHANGELOG.md records the previous release's commit under its heading").to.not.equal(null);
  return { version: found![1]!, commit: found![2]! };
}

const git = (args: string[]) => run('git', args, { cwd: packageRoot, maxBuffer: 256 * 1024 * 1024 });

/** The lockfile's dependencies, without the package's own version (which every release changes). */
function dependenciesOf(lockfile: string): string {
  const lock = JSON.parse(lockfile) as { version?: string; packages: Record<string, { version?: string }> };
  const { version: _ownVersion, ...root } = lock.packages[''] ?? {};
  return JSON.stringify({ ...lock.packages, '': root });
}

/**
 * The previous release's sources in `folder`, from the repository's history, with this checkout's node_modules when
 * its lockfile names the same dependencies (else its own, from `npm ci`).
 */
async function checkOut(commit: string, folder: string): Promise<Program> {
  await mkdir(folder);
  await new Promise<void>((resolve, reject) => {
    const archive = spawn('git', ['archive', '--format=tar', commit], { cwd: packageRoot });
    const untar = spawn('tar', ['-x', '-C', folder]);
    archive.stdout.pipe(untar.stdin);
    untar.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tar exited ${code}`))));
    archive.once('error', reject);
  });
  const [previous, current] = await Promise.all([
    readFile(join(folder, 'package-lock.json'), 'utf8'),
    readFile(join(packageRoot, 'package-lock.json'), 'utf8'),
  ]);
  if (dependenciesOf(previous) === dependenciesOf(current))
    await symlink(join(packageRoot, 'node_modules'), join(folder, 'node_modules'));
  else await run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: folder, maxBuffer: 64 * 1024 * 1024 });
  return fromSources(folder);
}

/**
 * A load balancer that sends each request to the next instance in turn: the requests of one flow cross both builds,
 * as during a rolling upgrade. Instances join once ready and leave before they are stopped, as with a /readyz probe.
 */
function roundRobin(): { server: Server; upstreams: URL[]; served: Map<string, number> } {
  const upstreams: URL[] = [];
  const served = new Map<string, number>();
  let next = 0;
  const server = createServer((incoming, outgoing) => {
    const upstream = upstreams[next++ % upstreams.length]!;
    served.set(upstream.href, (served.get(upstream.href) ?? 0) + 1);
    const forwarded = request(
      new URL(incoming.url!, upstream),
      { method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(outgoing);
      },
    );
    // An instance that fails the request fails the flow: the proxy answers 502, which the flow reports.
    forwarded.once('error', () => outgoing.writeHead(502).end());
    incoming.pipe(forwarded);
  });
  return { server, upstreams, served };
}

describe('the previous release beside this build on one PostgreSQL database, and the way back', function () {
  this.timeout(600_000);
  let folder: string;
  let database: TestDatabase | undefined;
  let balancer: ReturnType<typeof roundRobin> | undefined;
  const instances = new Set<ServeProcess>();

  before(async function () {
    if (!process.env.DATABASE_URL) {
      console.log(
        "    skipped: two builds share one PostgreSQL (runs with DATABASE_URL, as CI's PostgreSQL pass does)",
      );
      this.skip();
    }
    const { commit } = await previousRelease();
    if (
      !(await git(['cat-file', '-e', `${commit}^{commit}`]).then(
        () => true,
        () => false,
      ))
    ) {
      console.log(`    skipped: the previous release's commit ${commit} is not in this clone's history (shallow?)`);
      this.skip();
    }
    folder = await mkdtemp(join(tmpdir(), 'age-provider-side-by-side-'));
  });

  after(async () => {
    for (const instance of instances) instance.child.kill('SIGTERM');
    await Promise.all([...instances].map((instance) => instance.exited));
    balancer?.server.close();
    await database?.drop();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('serves whole flows across both builds with no failed request, then on the previous build alone after the newer one stops', async () => {
    const { version, commit } = await previousRelease();
    const previous = await checkOut(commit, join(folder, `age-provider-${version}`));
    const current = fromSources();

    // A fresh database, migrated by the previous release as it was deployed.
    database = await createTestDatabase();
    await database.db.raw('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
    balancer = roundRobin();
    await new Promise<void>((resolve) => balancer!.server.listen(0, '127.0.0.1', resolve));
    const { port } = balancer.server.address() as { port: number };
    const env = {
      ...parseEnv((await cli({}, ['secrets'])).stdout),
      DATABASE_URL: database.url,
      ISSUER: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'warn',
    };
    let instanceCount = 0;
    const start = async (program: Program): Promise<ServeProcess> => {
      const instance = await serveProcess({ ...env, DATA_DIR: join(folder, `data-${instanceCount++}`) }, [], program);
      instances.add(instance);
      balancer!.upstreams.push(new URL(instance.started.listening));
      return instance;
    };
    const stop = async (instance: ServeProcess): Promise<void> => {
      const at = balancer!.upstreams.findIndex((url) => url.href === new URL(instance.started.listening).href);
      balancer!.upstreams.splice(at, 1);
      instance.child.kill('SIGTERM');
      expect(await instance.exited, 'a clean stop').to.equal(0);
      instances.delete(instance);
    };

    const first = await start(previous);
    const cliOf = async (program: Program, args: string[]): Promise<string> =>
      (
        await run(process.execPath, [...program.nodeArgs, ...args], {
          cwd: program.cwd,
          env: { PATH: process.env.PATH, ...env, DATA_DIR: join(folder, 'cli') },
        })
      ).stdout;
    await cliOf(previous, ['webmaster', 'create', '--email', 'upgrade@example.test', '--json']);
    const { token } = JSON.parse(
      await cliOf(previous, ['webmaster', 'token', '--email', 'upgrade@example.test', '--json']),
    ) as { token: string };
    const api = async <T>(path: string, body: unknown): Promise<T> => {
      const response = await fetch(`${env.ISSUER}/external${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status, path).to.be.oneOf([200, 201]);
      return (await response.json()) as T;
    };
    const website = await api<{ id: number }>('/website', { name: 'Upgrade shop', domain: 'upgrade.example.test' });
    const redirectUri = 'https://upgrade.example.test/callback';
    const client: FlowClient = {
      ...(await api<{ clientId: string; clientSecret: string }>(`/website/${website.id}/oauth2/test`, {
        redirectUris: [redirectUri],
      })),
      redirectUri,
    };

    // Whole flows, two at a time, for as long as the upgrade and the way back take.
    let stopping = false;
    let passed = 0;
    const failures: string[] = [];
    const load = Promise.all(
      [0, 1].map(async () => {
        while (!stopping)
          await wholeFlow(env.ISSUER, client).then(
            () => void passed++,
            (error: unknown) => void failures.push(describeFailure(error)),
          );
      }),
    );
    const flowsSoFar = async (atLeast: number): Promise<void> => {
      const target = passed + failures.length + atLeast;
      while (passed + failures.length < target) await new Promise((resolve) => setTimeout(resolve, 50));
    };

    await flowsSoFar(2);
    // The upgrade: the newer build migrates the database under the running previous release and joins it.
    const newer = await start(current);
    await flowsSoFar(6);
    // The way back: the previous release starts again on the expanded schema, then the newer build stops.
    await stop(first);
    const again = await start(previous);
    await flowsSoFar(4);
    await stop(newer);
    await flowsSoFar(4);
    stopping = true;
    await load;

    expect(failures).to.deep.equal([]);
    expect(passed).to.be.at.least(16);
    expect(balancer.served.get(new URL(newer.started.listening).href), 'the newer build served').to.be.above(0);
    expect(
      balancer.served.get(new URL(again.started.listening).href),
      'the restarted previous build served',
    ).to.be.above(0);
  });
});
