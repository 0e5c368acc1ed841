import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { secretVariables } from '../../lib/config/secret-values.js';
import { packageRoot } from '../../lib/paths.js';
import { migrate } from '../../lib/store/migrate.js';
import { startTestApp, testSecrets, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { readResources, requestToken } from '../helpers/relying-party.js';
import { cli } from '../cli/run.js';
import { LOCAL_RECEIVERS, register, setUp, shortcutFlow, verified } from '../webhooks/helpers.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';

/** The shell blocks of docs/backup.md's PostgreSQL section that run `command`: the test runs what the docs say. */
function documented(command: 'pg_dump' | 'pg_restore'): string {
  const doc = readFileSync(join(packageRoot, 'docs/backup.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## PostgreSQL'));
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
  const block = blocks.find((text) => text.startsWith(`${command} `));
  if (!block) throw new Error(`docs/backup.md shows no ${command} block`);
  return block;
}

const bash = (script: string, env: NodeJS.ProcessEnv) =>
  promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { env: { PATH: process.env.PATH, ...env } });

/** An instance that leaves its webhook messages in the outbox while the test runs. */
const NEVER_DELIVERS = { ...LOCAL_RECEIVERS, WEBHOOK_POLL_INTERVAL_MS: '3600000' };

describe('PostgreSQL backup and restore as docs/backup.md shows them', function () {
  this.timeout(120_000);
  let folder: string;
  let receiver: Receiver;
  let original: TestDatabase;
  let copy: TestDatabase | undefined;
  const apps: TestApp[] = [];

  before(async function () {
    if (!process.env.DATABASE_URL) this.skip(); // pg_dump and pg_restore need PostgreSQL
    folder = await mkdtemp(join(tmpdir(), 'age-provider-pg-backup-'));
    receiver = await startReceiver();
    original = await createTestDatabase();
  });
  after(async () => {
    for (const app of apps.splice(0)) await app.close();
    await copy?.drop();
    await original?.drop();
    await receiver?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('restores into a new database: tokens read Resources, the trail verifies, waiting webhooks go out', async () => {
    const live = await startTestApp({ env: NEVER_DELIVERS }, { shared: original });
    apps.push(live);
    const { client, api } = await setUp(live);
    const hook = await register(api, client.websiteId, receiver.url);
    const token = (await (await requestToken(live, { code: await shortcutFlow(live, client), client })).json()) as {
      access_token: string;
    };

    // Flows keep running while pg_dump reads.
    let serving = true;
    const flows = (async () => {
      let completed = 0;
      while (serving) {
        await shortcutFlow(live, client);
        completed += 1;
      }
      return completed;
    })();
    const backupFile = join(folder, 'age-provider.dump');
    await bash(documented('pg_dump'), { DATABASE_URL: original.url, BACKUP_FILE: backupFile });
    serving = false;
    expect(await flows).to.be.greaterThan(0);
    expect((await stat(backupFile)).mode & 0o777).to.equal(0o600);

    // A new database emptied of what the test helper migrated into it, then the documented restore into it.
    copy = await createTestDatabase();
    await copy.db.raw('drop schema public cascade; create schema public');
    await bash(documented('pg_restore'), { NEW_DATABASE_URL: copy.url, BACKUP_FILE: backupFile });
    expect(await migrate(copy.db)).to.deep.equal([]);

    const secrets = secretVariables(testSecrets);
    const audit = await cli({ ...secrets, DATABASE_URL: copy.url, LOG_LEVEL: 'silent' }, ['audit', 'verify', '--json']);
    expect(audit.code, audit.stderr).to.equal(0);
    expect(JSON.parse(audit.stdout)).to.deep.include({ intact: true, breaks: [] });

    const restored = await startTestApp({ env: LOCAL_RECEIVERS }, { shared: copy });
    apps.push(restored);
    expect((await readResources(restored, token.access_token)).status).to.equal(200);
    const [delivered] = await receiver.waitFor(1);
    expect(verified(hook.secret, delivered!).type).to.equal('verification.completed');
  });
});
