import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../lib/paths.js';
import { cli } from './run.js';

const { version } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
const NO_DATABASE_NEEDED = { LOG_LEVEL: 'silent', DATA_DIR: '/nonexistent/age-provider-never-created' };

describe('age-provider command-line errors and exit codes', function () {
  this.timeout(60_000);

  it('prints its version with --version and -v', async () => {
    expect(await cli(NO_DATABASE_NEEDED, ['--version'])).to.deep.equal({
      code: 0,
      stdout: `age-provider ${version}\n`,
      stderr: '',
    });
    expect((await cli(NO_DATABASE_NEEDED, ['-v'])).stdout).to.equal(`age-provider ${version}\n`);
  });

  it('exits 2 with one line saying what to type for an unknown command line', async () => {
    const cases: Array<[string[], string]> = [
      [['migrate', '--bogus'], 'unknown option --bogus; "migrate" takes --json, --dry-run, --help'],
      [['webmaster', 'create', '--email'], '--email needs a value: --email VALUE'],
      [['webmaster', 'create', '--email', '--password-stdin'], '--email needs a value: --email VALUE'],
      [['migrate', '--json=yes'], '--json takes no value'],
      [
        ['tickets', 'issue', '--count', '2', '--level', 'high'],
        '--level "high" is not a level: use one of STANDARD, ENHANCED, STRICT',
      ],
      [['tickets', 'issue', '--count', '2'], '--level is required: one of STANDARD, ENHANCED, STRICT'],
    ];
    for (const [args, message] of cases) {
      const run = await cli(NO_DATABASE_NEEDED, args);
      const name = args[0];
      expect(run, args.join(' ')).to.deep.equal({
        code: 2,
        stdout: '',
        stderr: `age-provider ${name}: ${message}\nRun "age-provider ${name} --help" for its usage.\n`,
      });
    }
    expect((await cli(NO_DATABASE_NEEDED, ['frobnicate'])).code).to.equal(2);
    expect((await cli(NO_DATABASE_NEEDED, [])).code).to.equal(2);
  });

  describe('an unusable PostgreSQL database', () => {
    // Port 1 on the loopback interface: nothing listens there, and the connection is refused at once. SINGLE_INSTANCE:
    // a valid configuration without shared keys, so the database is the only problem.
    const configured = { ...NO_DATABASE_NEEDED, SINGLE_INSTANCE: 'true' };
    const unreachable = { ...configured, DATABASE_URL: 'postgres://operator:hunter2-secret@127.0.0.1:1/agedb' };

    for (const args of [
      ['migrate'],
      ['serve'],
      ['webmaster', 'token', '--email', 'a@example.test'],
      ['tickets', 'issue', '--count', '1', '--level', 'STRICT'],
    ]) {
      it(`ends "${args.join(' ')}" with one line naming DATABASE_URL without its password, exit 1`, async () => {
        const run = await cli(unreachable, args);
        expect(run).to.deep.equal({
          code: 1,
          stdout: '',
          stderr:
            `age-provider ${args[0]}: cannot use the PostgreSQL database DATABASE_URL=postgres://operator:***@127.0.0.1:1/agedb: ` +
            'nothing accepts connections at that host and port\n',
        });
      });
    }

    it('says so when the server runs but the database does not exist (--json: the same line as the error)', async function () {
      if (!process.env.DATABASE_URL) this.skip(); // needs a running PostgreSQL: set DATABASE_URL
      const url = new URL(process.env.DATABASE_URL);
      url.pathname = '/age_provider_no_such_database';
      const run = await cli({ ...configured, DATABASE_URL: url.toString() }, ['migrate', '--json']);
      expect(run.code).to.equal(1);
      expect(JSON.parse(run.stdout)).to.deep.equal({
        error: `cannot use the PostgreSQL database DATABASE_URL=${url.toString().replace(/:[^:@/]+@/, ':***@')}: that database does not exist (create it, e.g. with createdb)`,
      });
      expect(run.stderr.split('\n').filter(Boolean)).to.have.length(1);
    });
  });
});
