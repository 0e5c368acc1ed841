import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { migrations } from '../../migrations/index.js';
import { packageRoot } from '../../lib/paths.js';
import type { Database } from '../../lib/store/database.js';
import { cli, cliDatabase, type CliDatabase } from './run.js';

const MIGRATION_NAMES = migrations.map(([name]) => name);

describe('age-provider migrate and serve (operator CLI)', function () {
  this.timeout(120_000);
  let target: CliDatabase;
  let env: NodeJS.ProcessEnv;
  const inspect = <T>(work: (db: Database) => Promise<T>): Promise<T> => target.inspect(work);

  before(async () => {
    target = await cliDatabase('age-provider-migrate-');
    // On PostgreSQL the test database comes migrated: empty it so the CLI has everything to apply.
    await target.database?.db.raw('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
    env = target.env;
  });
  after(() => target.close());

  it('explains migrate and serve with --help, without touching the database or starting a server', async () => {
    const migrate = await cli(env, ['migrate', '--help']);
    expect(migrate).to.include({ code: 0, stderr: '' });
    expect(migrate.stdout)
      .to.contain('Usage: age-provider migrate [--dry-run] [--json]')
      .and.contain('Migrations are forward only.');
    const serve = await cli(env, ['serve', '--help']);
    expect(serve).to.include({ code: 0, stderr: '' });
    expect(serve.stdout)
      .to.contain('Usage: age-provider serve [--json]')
      .and.contain('Stops cleanly on SIGINT or SIGTERM.')
      .and.not.contain('listening');
    expect(await inspect((db) => db.schema.hasTable('websites'))).to.equal(false);
  });

  it('applies every migration once (--json: {applied}), then reports the database up to date', async () => {
    const first = await cli(env, ['migrate', '--json']);
    expect(first.code, first.stderr).to.equal(0);
    expect(JSON.parse(first.stdout)).to.deep.equal({ applied: MIGRATION_NAMES });
    expect(await inspect((db) => db.schema.hasTable('websites'))).to.equal(true);

    const again = await cli(env, ['migrate', '--json']);
    expect(again.code, again.stderr).to.equal(0);
    expect(JSON.parse(again.stdout)).to.deep.equal({ applied: [] });
    expect(await cli(env, ['migrate'])).to.deep.equal({ code: 0, stdout: 'already up to date\n', stderr: '' });
  });

  it('exits 2 on an unknown option and 1 on a bad configuration, with the error in --json', async () => {
    const unknown = await cli(env, ['migrate', '--bogus']);
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.equal(
      'age-provider migrate: unknown option --bogus; "migrate" takes --json, --dry-run, --help\nRun "age-provider migrate --help" for its usage.\n',
    );

    const badEnv = { ...env, PORT: 'not-a-port' };
    const human = await cli(badEnv, ['migrate']);
    expect(human.code).to.equal(1);
    expect(human.stderr).to.match(/^age-provider migrate: invalid configuration/);
    const json = await cli(badEnv, ['migrate', '--json']);
    expect(json.code).to.equal(1);
    expect(JSON.parse(json.stdout)).to.have.property('error').that.matches(/PORT/);
  });

  it('runs as the installed bin/age-provider.js from the build output', async function () {
    if (!existsSync(join(packageRoot, 'dist/lib/cli/main.js'))) {
      this.skip(); // dist/ is absent: run `npm run build` first to test the installed entry point.
    }
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(packageRoot, 'bin/age-provider.js'), '--help'],
      {
        cwd: packageRoot,
        env: { PATH: process.env.PATH },
      },
    );
    expect(stdout).to.contain('Usage: age-provider <command> [options]');
    for (const command of ['serve', 'migrate', 'webmaster', 'tickets'])
      expect(stdout).to.match(new RegExp(`^  ${command}\\s`, 'm'));
  });
});
