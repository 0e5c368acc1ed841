import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { expect } from 'chai';
import { packageRoot } from '../../lib/paths.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { cli, serveProcess, type ServeProcess } from '../cli/run.js';
import { buildLikeDocker, IMAGE_GROUP, IMAGE_USER } from './dockerfile.js';

// examples/deploy/ exercised as far as this machine allows (docs/deployment.md says what is and is not).

const DEPLOY = join(packageRoot, 'examples', 'deploy');
const NGINX = '/usr/sbin/nginx';

const found = (command: string): boolean => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const listening = async (port: number): Promise<boolean> => {
  for (let tries = 0; tries < 100; tries++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket
        .once('connect', () => {
          socket.destroy();
          resolve(true);
        })
        .once('error', () => resolve(false));
    });
    if (open) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
};

/** `text` with `from` replaced by `to`, which must occur exactly once: a change to the recipe fails here, not silently. */
function replaceOnce(text: string, from: string, to: string): string {
  expect(text.split(from).length - 1, `the recipe has exactly one "${from}"`).to.equal(1);
  return text.replace(from, to);
}

/** Still running: a child ended by a signal (an abort, say) has no exit code but a signal code, and emits 'exit' once. */
const running = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null;
describe('the deployment recipe (examples/deploy)', function () {
  this.timeout(300_000);

  describe('the systemd unit', () => {
    it('passes systemd-analyze verify as an instance, and stops later than the service drains', async function () {
      if (!found('systemd-analyze')) {
        console.log('    skipped: systemd-analyze is not installed (Debian: apt-get install -y systemd)');
        this.skip();
      }
      const folder = await mkdtemp(join(tmpdir(), 'age-provider-unit-'));
      try {
        const unit = await readFile(join(DEPLOY, 'age-provider@.service'), 'utf8');
        await writeFile(join(folder, 'age-provider@.service'), unit);
        const verify = (): ReturnType<typeof spawnSync> =>
          spawnSync('systemd-analyze', ['verify', join(folder, 'age-provider@1.service')], { encoding: 'utf8' });
        const run = verify();
        expect(run.status, String(run.stderr)).to.equal(0);
        expect(String(run.stderr)).to.equal('');
        // The check can fail: the same unit with a relative ExecStart is refused.
        await writeFile(
          join(folder, 'age-provider@.service'),
          unit.replace(/^ExecStart=.*\/opt\/age-provider\//m, 'ExecStart='),
        );
        expect(verify().status).not.to.equal(0);

        const settings = parseEnv(await readFile(join(DEPLOY, 'age-provider.env'), 'utf8'));
        const stopAfter = Number(/^TimeoutStopSec=(\d+)$/m.exec(unit)?.[1]);
        expect(stopAfter, 'systemd waits longer than SHUTDOWN_TIMEOUT').to.be.above(Number(settings.SHUTDOWN_TIMEOUT));
        for (const line of [
          'User=age-provider',
          'ProtectSystem=strict',
          'StateDirectory=age-provider/%i',
          'Restart=on-failure',
          'NoNewPrivileges=yes',
        ]) {
          expect(unit.split('\n'), line).to.include(line);
        }
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    });
  });

  describe('nginx with TLS in front of two instances on one PostgreSQL', () => {
    let folder: string;
    let database: TestDatabase | undefined;
    const instances: ServeProcess[] = [];
    let nginx: ChildProcess | undefined;
    let httpsPort: number;
    let httpPort: number;
    let apiToken: string;
    /** each instance's environment, its port fixed: a restart comes back where nginx's upstream points */
    const instanceEnvs: NodeJS.ProcessEnv[] = [];

    before(async function () {
      if (!existsSync(NGINX)) {
        console.log(`    skipped: ${NGINX} is not installed (Debian: apt-get install -y nginx; .ci/run installs it)`);
        this.skip();
      }
      if (!process.env.DATABASE_URL) {
        console.log(
          "    skipped: two instances share one PostgreSQL (runs with DATABASE_URL, as CI's PostgreSQL pass does)",
        );
        this.skip();
      }
      folder = await mkdtemp(join(tmpdir(), 'age-provider-nginx-'));
      // nginx's workers (nobody, when the tests run as root) read and write under it.
      await chmod(folder, 0o755);
      database = await createTestDatabase();
      [httpsPort, httpPort] = [await freePort(), await freePort()];

      // A throwaway certificate for localhost.
      await mkdir(join(folder, 'tls'));
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
          '-addext',
          'subjectAltName=DNS:localhost',
          '-keyout',
          join(folder, 'tls', 'privkey.pem'),
          '-out',
          join(folder, 'tls', 'fullchain.pem'),
        ],
        { stdio: 'ignore' },
      );

      // The instances as the unit runs them: age-provider.env's settings, secrets from `age-provider secrets`.
      const secrets = parseEnv((await cli({}, ['secrets'])).stdout);
      const env = {
        ...secrets,
        DATABASE_URL: database.url,
        ISSUER: `https://localhost:${httpsPort}`,
        TRUST_PROXY: 'true',
        GEO_COUNTRY_HEADER: 'X-Visitor-Country',
        GEO_SUBDIVISION_HEADER: 'X-Visitor-Subdivision',
        REQUIREMENT_RATE_LIMIT_PER_IP: '3',
        LOG_LEVEL: 'silent',
      };
      for (const index of [1, 2]) {
        instanceEnvs.push({ ...env, DATA_DIR: join(folder, `data-${index}`), PORT: String(await freePort()) });
        instances.push(await serveProcess(instanceEnvs.at(-1)!));
      }
      const created = await cli(env, ['webmaster', 'create', '--email', 'deploy@example.test', '--json']);
      expect(created.code, created.stderr).to.equal(0);
      apiToken = (
        JSON.parse((await cli(env, ['webmaster', 'token', '--email', 'deploy@example.test', '--json'])).stdout) as {
          token: string;
        }
      ).token;

      // The shipped server configuration, only its addresses and paths replaced; the upstream lists the two instances.
      let site = await readFile(join(DEPLOY, 'nginx', 'age-provider.conf'), 'utf8');
      site = replaceOnce(site, 'listen 80;', `listen 127.0.0.1:${httpPort};`);
      site = replaceOnce(site, 'listen 443 ssl;', `listen 127.0.0.1:${httpsPort} ssl;`);
      site = replaceOnce(site, '/etc/ssl/age-provider/fullchain.pem', join(folder, 'tls', 'fullchain.pem'));
      site = replaceOnce(site, '/etc/ssl/age-provider/privkey.pem', join(folder, 'tls', 'privkey.pem'));
      site = replaceOnce(site, '/etc/nginx/age-provider-countries.conf', join(folder, 'countries.conf'));
      site = site.replaceAll('server_name age.example.com;', 'server_name localhost;');
      await writeFile(join(folder, 'age-provider.conf'), site);
      // The loopback address is "in France" for this test's geo map, so the header the proxy sets is visible.
      await writeFile(join(folder, 'countries.conf'), '127.0.0.1/32 FR;\n');
      let upstream = await readFile(join(DEPLOY, 'nginx', 'upstream-systemd.conf'), 'utf8');
      upstream = replaceOnce(
        upstream,
        'server 127.0.0.1:3001',
        `server ${new URL(instances[0]!.started.listening).host}`,
      );
      upstream = replaceOnce(
        upstream,
        'server 127.0.0.1:3002',
        `server ${new URL(instances[1]!.started.listening).host}`,
      );
      await writeFile(join(folder, 'upstream.conf'), upstream);
      const temp = join(folder, 'temp');
      await mkdir(temp, { mode: 0o1777 });
      await chmod(temp, 0o1777);
      await writeFile(
        join(folder, 'nginx.conf'),
        [
          'worker_processes 1;',
          'daemon off;',
          `pid ${join(folder, 'nginx.pid')};`,
          `error_log ${join(folder, 'error.log')} warn;`,
          'events { worker_connections 256; }',
          'http {',
          '  access_log off;',
          ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
            (kind) => `  ${kind}_temp_path ${join(temp, kind)};`,
          ),
          `  include ${join(folder, 'upstream.conf')};`,
          `  include ${join(folder, 'age-provider.conf')};`,
          '}',
        ].join('\n'),
      );
      const test = spawnSync(
        NGINX,
        ['-t', '-p', folder, '-c', join(folder, 'nginx.conf'), '-e', join(folder, 'error.log')],
        { encoding: 'utf8' },
      );
      expect(test.status, test.stderr).to.equal(0);
      nginx = spawn(NGINX, ['-p', folder, '-c', join(folder, 'nginx.conf'), '-e', join(folder, 'error.log')], {
        stdio: 'ignore',
      });
      expect(await listening(httpsPort), 'nginx listens').to.equal(true);
    });
    after(async () => {
      if (nginx && running(nginx)) {
        const exited = new Promise((resolve) => nginx!.once('exit', resolve));
        nginx.kill('SIGTERM');
        await exited;
      }
      for (const instance of instances) if (running(instance.child)) instance.child.kill('SIGTERM');
      await Promise.all(instances.map((instance) => instance.exited));
      await database?.drop();
      if (folder) await rm(folder, { recursive: true, force: true });
    });

    it('redirects http to https', async () => {
      const response = await fetch(`http://127.0.0.1:${httpPort}/platform?x=1`, { redirect: 'manual' });
      expect(response.status).to.equal(301);
      expect(response.headers.get('location')).to.equal('https://127.0.0.1/platform?x=1');
    });

    it('serves a whole flow over https, and ignores the forwarding and geo headers a client forges', async () => {
      // A process of its own trusts the throwaway certificate (Node reads NODE_EXTRA_CA_CERTS only at start).
      const flow = spawnSync(
        process.execPath,
        ['--import', 'tsx', join(packageRoot, 'test', 'examples', 'https-flow.ts')],
        {
          cwd: packageRoot,
          encoding: 'utf8',
          env: {
            PATH: process.env.PATH,
            NODE_EXTRA_CA_CERTS: join(folder, 'tls', 'fullchain.pem'),
            BASE: `https://localhost:${httpsPort}`,
            API_TOKEN: apiToken,
          },
        },
      );
      expect(flow.status, flow.stderr).to.equal(0);
      const seen = JSON.parse(flow.stdout.trim().split('\n').at(-1)!) as {
        trail: string;
        code: string | null;
        tokenStatus: number;
        resources: { resources: Record<string, unknown> };
        cookies: string[];
        forged: Array<{ status: number; requestId: string | null; body: Record<string, unknown> }>;
      };
      expect(seen.code, seen.trail).to.be.a('string');
      expect(seen.tokenStatus).to.equal(200);
      expect(seen.resources.resources).to.include({ verified: true });
      expect(seen.cookies).to.have.length.above(0);
      for (const cookie of seen.cookies) expect(cookie.toLowerCase(), cookie).to.contain('; secure');
      // The country is the proxy's (its geo map puts 127.0.0.1 in France), never the client's JP.
      const answered = seen.forged.filter(({ status }) => status === 200);
      expect(answered.length).to.be.above(0);
      for (const { body } of answered) expect(body).to.include({ country: 'FR', country_subdivision: null });
      // Five requests each claiming another address: one address to the limit (3 a minute, shared in PostgreSQL).
      expect(seen.forged.map(({ status }) => status)).to.deep.equal([200, 200, 200, 429, 429]);
      // The request id is nginx's, not the client's.
      for (const [index, { requestId }] of seen.forged.entries())
        expect(requestId).to.be.a('string').and.not.equal(`forged-${index}`);
    });

    it('restarts each instance in turn under whole flows on keep-alive connections, plainly and for a key rotation: no error, no reset, no POST replayed', async function () {
      // Four restarts, each a drain and a start of its own.
      this.timeout(900_000);
      const load = spawn(
        process.execPath,
        ['--import', 'tsx', join(packageRoot, 'test', 'examples', 'https-load.ts')],
        {
          cwd: packageRoot,
          stdio: ['pipe', 'pipe', 'pipe'],
          env: {
            PATH: process.env.PATH,
            NODE_EXTRA_CA_CERTS: join(folder, 'tls', 'fullchain.pem'),
            BASE: `https://localhost:${httpsPort}`,
            API_TOKEN: apiToken,
            WORKERS: '6',
          },
        },
      );
      let stdout = '';
      let stderr = '';
      load.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      const running = new Promise<void>((resolve) =>
        load.stderr!.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (stderr.includes('running')) resolve();
        }),
      );
      const ended = new Promise((resolve) => load.once('exit', resolve));
      expect(
        await Promise.race([running.then(() => true), ended.then(() => false)]),
        `the load runs: ${stderr}`,
      ).to.equal(true);
      await new Promise((resolve) => setTimeout(resolve, 2000));

      /** SIGTERM, a clean exit, start again on the same port, ready: then at once the next instance, as the docs say. */
      const restart = async (index: number, env: NodeJS.ProcessEnv) => {
        instances[index]!.child.kill('SIGTERM');
        expect(await instances[index]!.exited, `instance ${index + 1} drained`).to.equal(0);
        instances[index] = await serveProcess(env);
        let ready = false;
        while (!ready)
          ready = await fetch(`${instances[index]!.started.listening}/readyz`).then(
            (response) => response.ok,
            () => false,
          );
      };
      for (const index of [0, 1]) await restart(index, instanceEnvs[index]!);
      // The key rotation's first step (docs/configuration.md "Rotating keys"): the next JWKS, then a rolling restart.
      const rotated = await cli(instanceEnvs[0]!, ['secrets', 'rotate', 'jwks', 'add']);
      expect(rotated.code, rotated.stderr).to.equal(0);
      const { JWKS } = parseEnv(rotated.stdout);
      expect(JWKS).to.be.a('string').and.not.equal(instanceEnvs[0]!.JWKS);
      for (const index of [0, 1]) {
        instanceEnvs[index] = { ...instanceEnvs[index], JWKS };
        await restart(index, instanceEnvs[index]!);
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));

      load.stdin!.end();
      await ended;
      const seen = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { passed: number; failures: string[] };
      const upstreamErrors = (await readFile(join(folder, 'error.log'), 'utf8'))
        .split('\n')
        .filter((line) => line.includes('upstream'));
      expect(seen.failures, upstreamErrors.join('\n')).to.deep.equal([]);
      expect(seen.passed).to.be.above(12);
      expect(await readFile(join(folder, 'error.log'), 'utf8')).not.to.match(/no live upstreams/);
    });
  });
});

describe('the Dockerfile, step by step in a clean folder (no container runtime here)', function () {
  this.timeout(600_000);
  let root: string | undefined;
  let image: ChildProcess | undefined;
  after(async () => {
    if (image && running(image)) {
      const exited = new Promise((resolve) => image!.once('exit', resolve));
      image.kill('SIGTERM');
      await exited;
    }
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('builds, and the image runs as an unprivileged user on a read-only tree but its data folder', async function () {
    if (!process.env.DATABASE_URL) {
      // A clean install and build take a minute or two: once per CI run is enough, and CI runs this pass once.
      console.log('    skipped: runs in the PostgreSQL pass (DATABASE_URL set), once per CI run');
      this.skip();
    }
    if (process.getuid?.() !== 0 || !found('setpriv')) {
      console.log('    skipped: running the image as another user needs root and setpriv (util-linux)');
      this.skip();
    }
    root = await mkdtemp(join(tmpdir(), 'age-provider-image-'));
    await chmod(root, 0o755);
    const built = await buildLikeDocker(join(DEPLOY, 'Dockerfile'), root);
    const app = join(built.root, 'app');
    const data = join(built.root, 'data');
    expect(existsSync(join(app, 'dist', 'lib', 'cli', 'main.js')), 'compiled').to.equal(true);
    expect(existsSync(join(app, 'node_modules', 'typescript')), 'development dependencies pruned').to.equal(false);
    expect(existsSync(join(app, 'lib')), 'no sources in the image').to.equal(false);
    expect(built.user).to.equal('node');

    const asUser = ['--reuid', IMAGE_USER, '--regid', IMAGE_GROUP, '--clear-groups', '--'];
    // The base image's Node.js, where node:24 images have it (/usr/local/bin): a copy of the one running this test.
    // Its own folder may be closed to other users (CI installs Node 24 under a mode-0700 temporary folder), and a
    // server that cannot run its own binary again cannot start the embedded database's process.
    const imageBin = join(built.root, 'usr', 'local', 'bin');
    await mkdir(imageBin, { recursive: true });
    await copyFile(process.execPath, join(imageBin, 'node'));
    await chmod(join(imageBin, 'node'), 0o755);
    const path = `${imageBin}:/usr/bin:/bin`;
    // The tree is read-only to that user (the test fails if it is not, so the run below proves something).
    expect(
      spawnSync('setpriv', [...asUser, 'touch', join(app, 'written')]).status,
      'the app folder is not writable',
    ).not.to.equal(0);

    const port = await freePort();
    const env = { PATH: path, ...built.env, DATA_DIR: data, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
    image = spawn('setpriv', [...asUser, ...built.cmd], { cwd: app, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    image.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    let ready = false;
    // Two minutes to start: a fresh embedded database is made and migrated first, slow on a loaded CI machine.
    for (const deadline = Date.now() + 120_000; Date.now() < deadline && !ready && running(image);) {
      ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (response) => response.ok,
        () => false,
      );
      if (!ready) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(ready, stderr).to.equal(true);
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).to.equal(200);
    const health = spawnSync('setpriv', [...asUser, ...built.healthcheck], { cwd: app, env });
    expect(health.status, 'the HEALTHCHECK passes').to.equal(0);
    // What it wrote, it wrote in the data folder: the generated secrets and the embedded database.
    expect(existsSync(join(data, 'secrets.json'))).to.equal(true);
    expect(existsSync(join(data, 'pgdata'))).to.equal(true);
  });
});
