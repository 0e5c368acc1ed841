import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgeProvider } from '../../lib/app.js';
import { ConfigError } from '../../lib/config/load.js';
import { openDatabase } from '../../lib/store/database.js';
import { DatabaseInUseError } from '../../lib/store/embedded-lock.js';

describe('the embedded database in DATA_DIR', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'age-provider-embedded-'));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  it('belongs to one owner: a second open is refused with what to do, and close releases it', async () => {
    const db = await openDatabase({ dataDir });
    try {
      await openDatabase({ dataDir }).then(() => expect.fail('opened twice'), (error: unknown) => {
        expect(error).to.be.instanceOf(DatabaseInUseError);
        expect((error as Error).message).to.contain(`process ${process.pid}`).and.contain('DATABASE_URL');
      });
    } finally {
      await db.destroy();
    }
    expect(existsSync(join(dataDir, 'owner.pid'))).to.equal(false);
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

  it('takes over a lock left by a process that no longer runs', async () => {
    await writeFile(join(dataDir, 'owner.pid'), '2147483646');
    const db = await openDatabase({ dataDir });
    await db.destroy();
  });
});

describe('start-up failures', () => {
  it('release the embedded database when a feature setting is bad', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'age-provider-startup-'));
    try {
      const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', GEOIP_DATABASE: join(dataDir, 'missing.mmdb') };
      await createAgeProvider({ env }).then(() => expect.fail('started'), (error: unknown) => {
        expect(error).to.be.instanceOf(ConfigError);
        expect((error as Error).message).to.contain('GEOIP_DATABASE');
      });
      expect(existsSync(join(dataDir, 'owner.pid'))).to.equal(false);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
