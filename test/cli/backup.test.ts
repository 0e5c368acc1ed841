import { expect } from 'chai';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../lib/store/database.js';
import { lockEmbedded } from '../../lib/store/embedded-lock.js';
import { migrate } from '../../lib/store/migrate.js';
import { startTestApp, testSecrets, type TestApp } from '../helpers/app.js';
import type { TestDatabase } from '../helpers/database.js';
import { readResources, requestToken } from '../helpers/relying-party.js';
import { LOCAL_RECEIVERS, register, setUp, shortcutFlow, verified } from '../webhooks/helpers.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { cli } from './run.js';

/** The service reads its secrets from DATA_DIR/secrets.json (none configured), as an embedded install does. */
const FROM_DATA_DIR = { cookieKeys: undefined, jwks: undefined, sealingKey: undefined };
/** An instance that leaves its webhook messages in the outbox while the test runs. */
const NEVER_DELIVERS = { ...LOCAL_RECEIVERS, WEBHOOK_POLL_INTERVAL_MS: '3600000' };

/** The app on the embedded database in `dataDir`, as `serve` runs it. */
async function serveEmbedded(dataDir: string, env: NodeJS.ProcessEnv): Promise<TestApp> {
  const db = await openDatabase({ dataDir });
  await migrate(db);
  const database: TestDatabase = { db, url: undefined, drop: () => db.destroy() };
  const app = await startTestApp({ env, dataDir, ...FROM_DATA_DIR }, { shared: database });
  return {
    ...app,
    async close() {
      await app.close();
      await database.drop();
    },
  };
}

describe('age-provider backup and restore (embedded database)', function () {
  this.timeout(180_000);
  let folder: string;
  let receiver: Receiver;
  /** the server whose DATA_DIR is backed up, serving all along */
  let live: TestApp;
  let restored: TestApp | undefined;
  const dataDir = (name: string): string => join(folder, name);
  const envOf = (name: string): NodeJS.ProcessEnv => ({ DATA_DIR: dataDir(name), LOG_LEVEL: 'silent' });

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'age-provider-backup-'));
    receiver = await startReceiver();
    await mkdir(dataDir('live'), { mode: 0o700 });
    await writeFile(join(dataDir('live'), 'secrets.json'), JSON.stringify(testSecrets), { mode: 0o600 });
    live = await serveEmbedded(dataDir('live'), NEVER_DELIVERS);
    // The flows' client shares the server's event loop here, which the copy blocks for a moment: without a longer
    // keep-alive, the server's idle timer and the client's reuse of that connection race once it runs again (a
    // reset no separate client would see, as its own idle timer is not blocked).
    live.server.keepAliveTimeout = 60_000;
  });
  after(async () => {
    await restored?.close();
    await live.close();
    await receiver.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('copies a serving database; restored elsewhere, its tokens read Resources, its trail verifies, its webhooks go out', async () => {
    const { client, api } = await setUp(live);
    const hook = await register(api, client.websiteId, receiver.url);
    const token = (await (await requestToken(live, { code: await shortcutFlow(live, client), client })).json()) as {
      access_token: string;
    };

    // Flows keep running while the copy is taken.
    let serving = true;
    const flows = (async () => {
      let completed = 0;
      while (serving) {
        await shortcutFlow(live, client);
        completed += 1;
      }
      return completed;
    })();
    const backupFile = join(folder, 'nightly.backup');
    const backup = await cli(envOf('live'), ['backup', '--out', backupFile, '--json']);
    serving = false;
    expect(await flows).to.be.greaterThan(0);
    expect(backup.stderr).to.equal('');
    expect(backup.code).to.equal(0);
    expect(JSON.parse(backup.stdout)).to.deep.include({
      file: backupFile,
      secrets: ['COOKIE_KEYS', 'JWKS', 'SEALING_KEY'],
      secretsNotIncluded: [],
    });
    expect((await stat(backupFile)).mode & 0o777).to.equal(0o600);

    // The running server's DATA_DIR is refused in one line, and so is a DATA_DIR that holds a database.
    const overLive = await cli(envOf('live'), ['restore', '--from', backupFile]);
    expect(overLive.code).to.equal(1);
    expect(overLive.stderr).to.match(/^age-provider restore: the embedded database in .* is in use by process \d+/);
    expect(overLive.stderr.trimEnd().split('\n')).to.have.length(1);

    const restore = await cli(envOf('restored'), ['restore', '--from', backupFile]);
    expect(restore).to.deep.include({ code: 0, stderr: '' });
    expect(restore.stdout).to.match(/^restored the backup of .* into /);
    expect((await cli(envOf('restored'), ['restore', '--from', backupFile])).stderr).to.contain(
      'holds a database already',
    );

    const audit = await cli(envOf('restored'), ['audit', 'verify', '--json']);
    expect(audit.code).to.equal(0);
    expect(JSON.parse(audit.stdout)).to.deep.include({ intact: true, breaks: [] });

    // The restored server reads the secrets that came with the copy: the token and the webhook's secret still work.
    restored = await serveEmbedded(dataDir('restored'), LOCAL_RECEIVERS);
    const resources = await readResources(restored, token.access_token);
    expect(resources.status).to.equal(200);
    const [delivered] = await receiver.waitFor(1);
    expect(verified(hook.secret, delivered!).type).to.equal('verification.completed');
  });

  it('says in one line which secrets a backup lacks when they come from the environment', async () => {
    const env = { ...envOf('live'), SEALING_KEY: testSecrets.sealingKey };
    const backup = await cli(env, ['backup', '--out', join(folder, 'partial.backup'), '--json']);
    expect(backup.code).to.equal(0);
    expect(backup.stderr.trimEnd().split('\n')).to.have.length(1);
    expect(backup.stderr).to.contain('does not hold SEALING_KEY').and.contain('docs/backup.md');
    expect(JSON.parse(backup.stdout)).to.deep.include({ secretsNotIncluded: ['SEALING_KEY'] });
  });

  it('says in one line what to do when the process holding DATA_DIR takes no backups (an older version)', async () => {
    await mkdir(join(dataDir('older'), 'pgdata'), { recursive: true, mode: 0o700 });
    await writeFile(join(dataDir('older'), 'pgdata', 'PG_VERSION'), '17\n');
    const release = await lockEmbedded(dataDir('older'));
    try {
      const backup = await cli(envOf('older'), ['backup', '--out', join(folder, 'older.backup')]);
      expect(backup.code).to.equal(1);
      expect(backup.stderr.trimEnd().split('\n')).to.have.length(1);
      expect(backup.stderr).to.contain('takes no backups').and.contain('stop it, then run backup again');
    } finally {
      await release();
    }
  });

  it('refuses a damaged file before writing anything', async () => {
    const file = join(folder, 'copy.backup');
    expect((await cli(envOf('live'), ['backup', '--out', file])).code).to.equal(0);
    const bytes = await readFile(file);
    await writeFile(file, bytes.subarray(0, bytes.length - 1000));
    const damaged = await cli(envOf('elsewhere'), ['restore', '--from', file]);
    expect(damaged).to.deep.include({ code: 1 });
    expect(damaged.stderr).to.contain('is damaged or incomplete');
    await writeFile(file, 'PGDMP not ours');
    expect((await cli(envOf('elsewhere'), ['restore', '--from', file])).stderr).to.contain(
      'is not an age-provider backup',
    );
    await stat(dataDir('elsewhere')).then(
      () => expect.fail('DATA_DIR was created'),
      () => undefined,
    );
  });
});
