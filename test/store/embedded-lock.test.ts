import { spawnSync } from 'node:child_process';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { serveProcess, type ServeProcess } from '../cli/run.js';

/**
 * A new PID namespace (with its own /proc) for the server: as a container sees it, where the server is PID 1. The
 * server dies with `unshare`, so that stopping the child process the test holds stops the server too.
 */
const UNSHARE = ['unshare', '--pid', '--fork', '--kill-child', '--mount-proc'];

/** The server's process ID as the host sees it: the one child of `unshare`. */
async function hostPidOf(wrapped: ServeProcess): Promise<number> {
  const pid = wrapped.child.pid!;
  const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8')).trim().split(' ');
  expect(children).to.have.length(1);
  return Number(children[0]);
}

/** Starting a server must fail because DATA_DIR is in use; the message it printed. */
async function refused(start: Promise<ServeProcess>): Promise<string> {
  return start.then(
    async (server) => {
      server.child.kill('SIGKILL');
      await server.exited;
      return expect.fail('a second server started on the same DATA_DIR');
    },
    (error: Error) => error.message,
  );
}

/**
 * The embedded database's lock across PID namespaces: a host process and a containerised server sharing DATA_DIR
 * judge each other's process IDs in different namespaces, so the lock must not depend on them (lib/store/embedded-lock.ts).
 */
describe('the embedded database lock across PID namespaces', function () {
  this.timeout(240_000);
  let dataDir: string;
  const running: ServeProcess[] = [];

  before(function () {
    // Creating a PID namespace needs root (CI runs as root) and util-linux's unshare.
    if (spawnSync(UNSHARE[0]!, [...UNSHARE.slice(1), 'true']).status !== 0) this.skip();
  });
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'age-provider-namespaces-'));
  });
  afterEach(async () => {
    for (const server of running.splice(0)) {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
      await server.exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  const serve = async (wrapper: readonly string[] = []) => {
    const server = await serveProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, wrapper);
    running.push(server);
    return server;
  };

  it('refuses a server in another PID namespace while a server on the host owns DATA_DIR', async () => {
    const host = await serve();
    expect(await refused(serve(UNSHARE))).to.contain(`in use by process ${String(host.child.pid)}`);
    host.child.kill('SIGTERM');
    expect(await host.exited).to.equal(0);
  });

  it('refuses a server on the host while a server in a PID namespace, PID 1 there, owns DATA_DIR', async () => {
    const contained = await serve(UNSHARE);
    expect(await refused(serve())).to.contain('in use by process 1 ');
    process.kill(await hostPidOf(contained), 'SIGTERM');
    expect(await contained.exited).to.equal(0);
  });

  it('is taken over at once after its owner, PID 1 in a namespace, was killed with SIGKILL', async () => {
    const killed = await serve(UNSHARE);
    process.kill(await hostPidOf(killed), 'SIGKILL');
    await killed.exited;
    const next = await serve(UNSHARE);
    const health = await fetch(`${next.started.listening}/healthz`);
    expect(health.status).to.equal(200);
    expect(await refused(serve())).to.contain('in use by process 1 ');
  });
});
