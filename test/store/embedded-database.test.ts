import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { chmod, lstat, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgeProvider } from '../../lib/app/app.js';
import { knexAdapter } from '../../adapters/knex.js';
import { ConfigError } from '../../lib/config/settings.js';
import { openDatabase } from '../../lib/store/database.js';
import { createLogger } from '../../lib/log.js';
import { DatabaseInUseError, lockEmbedded } from '../../lib/store/embedded-lock.js';

/** The lock's files in `dataDir`: an owner's socket, or the record of an earlier version. */
const ownerFiles = (dataDir: string): string[] => readdirSync(dataDir).filter((name) => name.startsWith('owner'));

describe('the embedded database in DATA_DIR', function () {
  // Each test opens PGlite (a WebAssembly PostgreSQL) one or more times: about 20 s alone, more beside CI's other run.
  this.timeout(120_000);
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'age-provider-embedded-'));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  it('belongs to one owner: a second open is refused with what to do, and close releases it', async () => {
    const db = await openDatabase({ dataDir });
    try {
      await openDatabase({ dataDir }).then(
        () => expect.fail('opened twice'),
        (error: unknown) => {
          expect(error).to.be.instanceOf(DatabaseInUseError);
          expect((error as Error).message)
            .to.contain(`process ${process.pid}`)
            .and.contain('DATABASE_URL');
        },
      );
    } finally {
      await db.destroy();
    }
    expect(ownerFiles(dataDir)).to.deep.equal([]);
  });

  it('keeps its data across restarts', async () => {
    const first = await openDatabase({ dataDir });
    await first.raw('create table kept (value text)');
    await first.raw("insert into kept values ('still here')");
    await first.destroy();
    const second = await openDatabase({ dataDir });
    const { rows } = (await second.raw('select value from kept')) as { rows: { value: string }[] };
    await second.destroy();
    expect(rows).to.deep.equal([{ value: 'still here' }]);
  });

  it('takes over the lock of an owner that was killed, and the record of a version that locked with its PID', async () => {
    // An owner killed with SIGKILL leaves its socket behind, with nobody listening on it.
    const killed = spawn(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(join(dataDir, 'owner-1.sock'))}, () => process.kill(process.pid, 'SIGKILL'))`,
    ]);
    await new Promise((resolve) => killed.once('exit', resolve));
    expect(await readdir(dataDir)).to.include('owner-1.sock');
    await writeFile(join(dataDir, 'owner.pid'), '1');
    const db = await openDatabase({ dataDir });
    expect(ownerFiles(dataDir)).to.deep.equal(['owner-2.sock']);
    await db.destroy();
    expect(ownerFiles(dataDir)).to.deep.equal([]);
  });

  it('refuses a DATA_DIR too long a path for its lock socket, naming the setting, instead of locking elsewhere', async () => {
    const long = join(dataDir, 'd'.repeat(100));
    try {
      await openDatabase({ dataDir: long }).then(
        () => expect.fail('opened'),
        (error: unknown) => {
          expect(error).to.be.instanceOf(ConfigError);
          expect((error as Error).message).to.match(/^invalid configuration: DATA_DIR: .* too long/);
        },
      );
      expect(readdirSync(long)).to.deep.equal([]);
    } finally {
      await rm(long, { recursive: true, force: true });
    }
  });

  it("lets exactly one of many takers racing for a dead owner's lock in", async () => {
    const killed = spawn(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(join(dataDir, 'owner-7.sock'))}, () => process.kill(process.pid, 'SIGKILL'))`,
    ]);
    await new Promise((resolve) => killed.once('exit', resolve));
    const attempts = await Promise.allSettled(Array.from({ length: 8 }, () => lockEmbedded(dataDir)));
    const won = attempts.flatMap((attempt) => (attempt.status === 'fulfilled' ? [attempt.value] : []));
    expect(won).to.have.length(1);
    for (const attempt of attempts)
      if (attempt.status === 'rejected') expect(attempt.reason).to.be.instanceOf(DatabaseInUseError);
    await won[0]!();
    expect(ownerFiles(dataDir)).to.deep.equal([]);
  });
});

describe('the permissions of DATA_DIR', function () {
  // Each test opens PGlite (a WebAssembly PostgreSQL) one or more times: about 20 s alone, more beside CI's other run.
  this.timeout(120_000);
  const modes = async (folder: string): Promise<Map<string, number>> => {
    const found = new Map<string, number>([[folder, (await stat(folder)).mode & 0o777]]);
    for (const entry of await readdir(folder, { recursive: true }))
      found.set(entry, (await lstat(join(folder, entry))).mode & 0o777);
    return found;
  };

  it('creates the folder and every database file for the owner alone (0700 folders, 0600 files)', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'age-provider-modes-'));
    const dataDir = join(parent, 'data');
    try {
      const db = await openDatabase({ dataDir });
      await db.raw('create table written (value text)');
      await db.raw("insert into written values ('x')");
      await db.destroy();
      const found = await modes(dataDir);
      expect(found.size).to.be.greaterThan(100);
      const open = [...found].filter(([, mode]) => (mode & 0o077) !== 0);
      expect(open).to.deep.equal([]);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('restricts an existing folder opened to everyone, with a JSON warning', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'age-provider-modes-'));
    try {
      await (await openDatabase({ dataDir })).destroy();
      for (const [path, mode] of await modes(dataDir)) {
        const full = path === dataDir ? path : join(dataDir, path);
        await chmod(full, mode & 0o700 ? (mode === 0o700 ? 0o755 : 0o666) : mode);
      }
      const lines: string[] = [];
      const db = await openDatabase({ dataDir, log: createLogger('warn', (line) => lines.push(line)) });
      await db.destroy();
      expect([...(await modes(dataDir))].filter(([, mode]) => (mode & 0o077) !== 0)).to.deep.equal([]);
      expect(lines).to.have.length(1);
      const warning = JSON.parse(lines[0]!) as { level: string; message: string; changed: number };
      expect(warning.level).to.equal('warn');
      expect(warning.message).to.contain('DATA_DIR');
      expect(warning.changed).to.be.greaterThan(100);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('start-up failures', function () {
  // Each test opens PGlite (a WebAssembly PostgreSQL) one or more times: about 20 s alone, more beside CI's other run.
  this.timeout(120_000);
  it('release the embedded database when a feature setting is bad', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'age-provider-startup-'));
    try {
      const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', GEOIP_DATABASE: join(dataDir, 'missing.mmdb') };
      await createAgeProvider({ env }, knexAdapter).then(
        () => expect.fail('started'),
        (error: unknown) => {
          expect(error).to.be.instanceOf(ConfigError);
          expect((error as Error).message).to.contain('GEOIP_DATABASE');
        },
      );
      expect(ownerFiles(dataDir)).to.deep.equal([]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
