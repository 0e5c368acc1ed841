import { expect } from 'chai';
import { knexAdapter } from '../../adapters/knex.js';
import { createAgeProvider } from '../../lib/app/app.js';
import { createLogger } from '../../lib/log.js';
import { packageVersion } from '../../lib/paths.js';
import type { Database } from '../../lib/store/database.js';
import { migrations } from '../../migrations/index.js';
import { cli, cliDatabase, type CliDatabase } from './run.js';

const MIGRATION_NAMES = migrations.map(([name]) => name);

/** What a newer build leaves behind: its migration in knex's list and, unless it stopped first, its recorded step. */
async function applyAsNewerBuild(
  db: Database,
  name: string,
  recorded?: { step: 'expand' | 'contract'; by: string },
): Promise<void> {
  await db('knex_migrations').insert({ name, batch: 99, migration_time: new Date() });
  if (recorded) await db('migration_steps').insert({ name, step: recorded.step, recorded_by: recorded.by });
}

const forget = (db: Database, name: string) =>
  Promise.all([db('knex_migrations').where({ name }).del(), db('migration_steps').where({ name }).del()]);

describe('schema changes an operator can see: migrate status, --dry-run, and a build older than its database', function () {
  this.timeout(120_000);
  let target: CliDatabase;
  let env: NodeJS.ProcessEnv;
  const inspect = <T>(work: (db: Database) => Promise<T>): Promise<T> => target.inspect(work);

  before(async () => {
    target = await cliDatabase('age-provider-schema-');
    await target.database?.db.raw('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
    env = target.env;
  });
  after(() => target.close());

  it('on a fresh database, status lists every migration as pending and --dry-run names them, changing nothing', async () => {
    const status = await cli(env, ['migrate', 'status', '--json']);
    expect(status.code, status.stderr).to.equal(0);
    const state = JSON.parse(status.stdout) as { applied: unknown[]; pending: Array<{ name: string; step: string }> };
    expect(state.applied).to.deep.equal([]);
    expect(state.pending.map(({ name }) => name)).to.deep.equal(MIGRATION_NAMES);
    expect(state.pending.find(({ name }) => name === '023_migration_steps')).to.deep.include({ step: 'expand' });

    const dryRun = await cli(env, ['migrate', '--dry-run']);
    expect(dryRun.code, dryRun.stderr).to.equal(0);
    expect(dryRun.stdout).to.match(
      new RegExp(`^would apply \\(${MIGRATION_NAMES.length}\\):\\n  001_initial \\(expand\\)`),
    );
    expect(await inspect((db) => db.schema.hasTable('websites'))).to.equal(false);
  });

  it('writes one log line per migration applied, then status shows them applied with their step', async () => {
    const run = await cli({ ...env, LOG_LEVEL: 'info' }, ['migrate']);
    expect(run.code, run.stderr).to.equal(0);
    const lines = run.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { message: string; migration?: string; step?: string });
    const applied = lines.filter((line) => line.message === 'migration applied');
    expect(applied.map(({ migration }) => migration)).to.deep.equal(MIGRATION_NAMES);
    expect(applied.every(({ step }) => step === 'expand' || step === 'contract')).to.equal(true);

    const status = await cli(env, ['migrate', 'status']);
    expect(status.stdout).to.contain(`applied (${MIGRATION_NAMES.length}):\n  001_initial (expand)`);
    expect(status.stdout).to.contain('pending (0):\n  none');
    expect(await cli(env, ['migrate', '--dry-run'])).to.include({
      code: 0,
      stdout: 'already up to date: nothing would be applied\n',
    });
    // every migration this build knows is recorded for the builds that will not know it
    const recorded = await inspect((db) => db('migration_steps').orderBy('name').select('name', 'step', 'recorded_by'));
    expect(recorded.map(({ name }) => name)).to.deep.equal(MIGRATION_NAMES);
    expect(recorded[0]).to.deep.equal({ name: '001_initial', step: 'expand', recorded_by: packageVersion() });
  });

  it('runs on expand steps a newer build applied, saying so in one log line and in status', async () => {
    await inspect((db) => applyAsNewerBuild(db, '900_newer_expand', { step: 'expand', by: '9.0.0' }));
    try {
      const run = await cli({ ...env, LOG_LEVEL: 'info' }, ['migrate', '--json']);
      expect(run.code, run.stderr).to.equal(0);
      expect(JSON.parse(run.stdout)).to.deep.equal({ applied: [] });
      const warning = JSON.parse(run.stderr.trim()) as Record<string, unknown>;
      expect(warning).to.deep.include({
        level: 'warn',
        migrations: ['900_newer_expand'],
        newerBuild: '9.0.0',
        thisBuild: packageVersion(),
      });

      const status = await cli(env, ['migrate', 'status', '--json']);
      expect(JSON.parse(status.stdout).newer).to.deep.equal([
        { name: '900_newer_expand', step: 'expand', recordedBy: '9.0.0' },
      ]);

      // The service itself starts and serves on it.
      const lines: string[] = [];
      const provider = await createAgeProvider(
        { env: { ...env, LOG_LEVEL: 'info' }, logger: createLogger('info', (line) => lines.push(line)) },
        knexAdapter,
      );
      await provider.close();
      expect(lines.filter((line) => line.includes('900_newer_expand'))).to.have.length(1);
    } finally {
      await inspect((db) => forget(db, '900_newer_expand'));
    }
  });

  for (const [name, recorded, shown] of [
    ['901_newer_contract', { step: 'contract', by: '9.1.0' }, '901_newer_contract (a contract step)'],
    ['902_newer_unrecorded', undefined, '902_newer_unrecorded (not recorded)'],
  ] as const) {
    it(`refuses to start or migrate in one line naming both versions when a newer build left ${shown}`, async () => {
      await inspect((db) => applyAsNewerBuild(db, '900_newer_expand', { step: 'expand', by: '9.0.0' }));
      await inspect((db) => applyAsNewerBuild(db, name, recorded));
      try {
        const newest = recorded ? 'age-provider 9.1.0' : 'age-provider 9.0.0';
        const line = `this build (age-provider ${packageVersion()}) is older than its database: ${newest} applied ${shown}, which this build does not know; run ${newest} or later, or restore the backup taken before that upgrade (docs/upgrading.md)`;
        for (const args of [['serve'], ['migrate'], ['migrate', '--dry-run'], ['audit', 'verify']]) {
          const run = await cli(env, args);
          expect(run, args.join(' ')).to.deep.equal({
            code: 1,
            stdout: '',
            stderr: `age-provider ${args[0]}: ${line}\n`,
          });
        }
        // status still reads, so the operator sees what is there
        const status = await cli(env, ['migrate', 'status']);
        expect(status.code).to.equal(0);
        expect(status.stdout).to.contain(`  ${name} (${recorded ? 'contract, age-provider 9.1.0' : 'not recorded'})`);
        // and nothing was migrated or recorded meanwhile
        expect(await inspect((db) => db('migration_steps').where({ name }).first())).to.deep.equal(
          recorded ? { name, step: 'contract', recorded_by: '9.1.0' } : undefined,
        );
      } finally {
        await inspect((db) => Promise.all([forget(db, name), forget(db, '900_newer_expand')]));
      }
    });
  }
});
