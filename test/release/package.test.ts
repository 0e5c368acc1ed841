import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { packageRoot, packageVersion } from '../../lib/paths.js';
import { serveProcess, type ServeProcess } from '../cli/run.js';

const run = promisify(execFile);
const npm = (args: string[], cwd: string) => run('npm', args, { cwd, maxBuffer: 64 * 1024 * 1024 });

/**
 * The release procedure's last check (docs/releasing.md): what `npm pack` puts in the tarball is enough to install
 * and run the service, in a folder that has nothing of this checkout.
 */
describe('the npm pack tarball, installed into an empty folder', function () {
  this.timeout(900_000);
  let work: string;
  let installed: string;
  let server: ServeProcess | undefined;

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'age-provider-pack-'));
    // `npm pack` runs `prepare` (the build) first, as `npm publish` would. It packs a copy of the checkout: the build
    // writes dist/, which other test files (and CI's other run beside this one) may be reading in the checkout itself.
    const tree = join(work, 'tree');
    const skipped = new Set(['node_modules', '.git', 'dist']);
    await cp(packageRoot, tree, {
      recursive: true,
      filter: (source) => !skipped.has(source.slice(packageRoot.length + 1).split('/')[0]!),
    });
    await symlink(join(packageRoot, 'node_modules'), join(tree, 'node_modules'), 'dir');
    await npm(['pack', '--pack-destination', work], tree);
    const [tarball] = (await readdir(work)).filter((name) => name.endsWith('.tgz'));
    expect(tarball).to.equal(`age-provider-${packageVersion()}.tgz`);
    const app = join(work, 'app');
    await mkdir(app);
    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'release-check', private: true }));
    // The registry is asked only for what the local cache lacks; dev dependencies are not installed.
    await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--omit=dev', join(work, tarball!)], app);
    installed = join(app, 'node_modules/age-provider');
  });

  after(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    await rm(work, { recursive: true, force: true });
  });

  it('says the version package.json says', async () => {
    const { stdout } = await run(process.execPath, [join(installed, 'bin/age-provider.js'), '--version'], {
      cwd: installed,
    });
    expect(stdout).to.equal(`age-provider ${packageVersion()}\n`);
  });

  it('serves on the embedded database: /readyz answers 200, and SIGTERM stops it with exit code 0', async () => {
    const dataDir = join(work, 'data');
    server = await serveProcess({ DATA_DIR: dataDir, OPERATIONS_PORT: '0', LOG_LEVEL: 'warn' }, [], {
      cwd: installed,
      nodeArgs: [join(installed, 'bin/age-provider.js')],
    });
    const ready = await fetch(new URL('/readyz', server.started.operations));
    expect(ready.status).to.equal(200);
    const discovery = await fetch(new URL('/.well-known/oauth-authorization-server', server.started.listening));
    expect(discovery.status).to.equal(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).to.equal(0);
    server = undefined;
  });
});
