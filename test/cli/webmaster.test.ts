import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Database } from '../../lib/store/database.js';
import { systemClock } from '../../lib/clock.js';
import { authenticateApiToken } from '../../lib/webmasters/api-tokens.js';
import { authenticateWebmaster } from '../../lib/webmasters/accounts.js';
import { cli, cliDatabase, serveProcess, type CliDatabase, type ServeProcess } from './run.js';

let counter = 0;
const newEmail = () => `cli-${Date.now()}-${counter++}@example.test`;
const STRONG = 'a long enough passphrase';

describe('age-provider webmaster (operator CLI)', function () {
  this.timeout(120_000);
  let target: CliDatabase;
  let env: NodeJS.ProcessEnv;
  const inspect = <T>(work: (db: Database) => Promise<T>): Promise<T> => target.inspect(work);

  before(async () => {
    target = await cliDatabase('age-provider-cli-');
    env = target.env;
  });
  after(() => target.close());

  it('explains itself with --help and is listed in the overview', async () => {
    const help = await cli(env, ['webmaster', '--help']);
    expect(help.code).to.equal(0);
    expect(help.stdout).to.contain('age-provider webmaster create --email E [--password-stdin] [--json]')
      .and.contain('age-provider webmaster token --email E [--name N] [--json]')
      .and.contain('age-provider webmaster delete (--webmaster ID | --email E) --yes [--json]');
    expect((await cli(env, ['webmaster', 'create', '--help'])).stdout).to.equal(help.stdout);
    expect((await cli(env, ['--help'])).stdout).to.match(/webmaster\s+create, list, show, disable, enable or delete webmaster accounts/);
  });

  it('creates a webmaster with a password from stdin (--json: one document, no password echoed)', async () => {
    const email = newEmail();
    const run = await cli(env, ['webmaster', 'create', '--email', email, '--password-stdin', '--json'], `${STRONG}\n`);
    expect(run.code, run.stderr).to.equal(0);
    const result = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(Object.keys(result).sort()).to.deep.equal(['createdAt', 'email', 'id']);
    expect(result.email).to.equal(email);
    expect(result.id).to.be.a('number');
    expect(new Date(result.createdAt as string).getTime()).to.be.closeTo(Date.now(), 60_000);
    expect(await inspect((db) => authenticateWebmaster(db, email, STRONG))).to.deep.include({ id: result.id, email });
  });

  it('generates a strong password when none is given and prints it once', async () => {
    const email = newEmail();
    const human = await cli(env, ['webmaster', 'create', '--email', email]);
    expect(human.code, human.stderr).to.equal(0);
    expect(human.stdout).to.contain(`Created webmaster ${email}`);
    const password = /Generated password \(shown only this once\): (\S+)/.exec(human.stdout)?.[1];
    expect(password).to.be.a('string').with.length.of.at.least(20);
    expect(await inspect((db) => authenticateWebmaster(db, email, password!))).to.deep.include({ email });

    const json = JSON.parse((await cli(env, ['webmaster', 'create', '--email', newEmail(), '--json'])).stdout) as { password: string };
    expect(json.password).to.be.a('string').with.length.of.at.least(20).and.not.equal(password);
  });

  it('prints a new API token once and revokes the previous one', async () => {
    const email = newEmail();
    expect((await cli(env, ['webmaster', 'create', '--email', email, '--password-stdin'], STRONG)).code).to.equal(0);
    const first = await cli(env, ['webmaster', 'token', '--email', email, '--json']);
    expect(first.code, first.stderr).to.equal(0);
    const issued = JSON.parse(first.stdout) as { webmasterId: number; email: string; token: string };
    expect(Object.keys(issued).sort()).to.deep.equal(['email', 'token', 'webmasterId']);
    expect(issued.token).to.match(/^avk_[A-Za-z0-9_-]{43}$/);
    expect(issued.email).to.equal(email);

    const second = await cli(env, ['webmaster', 'token', '--email', email.toUpperCase()]);
    expect(second.code).to.equal(0);
    const token = /^(avk_\S+)$/m.exec(second.stdout)?.[1];
    expect(second.stdout).to.contain('shown only this once; the previous token of this name no longer works');
    expect(token).to.be.a('string').and.not.equal(issued.token);
    await inspect(async (db) => {
      expect(await authenticateApiToken(db, systemClock, issued.token)).to.equal(undefined);
      expect((await authenticateApiToken(db, systemClock, token!))?.accountId).to.equal(issued.webmasterId);
    });
  });

  it('fails clearly, with a non-zero exit, on an unknown email, a taken email, a bad email and a weak password', async () => {
    const email = newEmail();
    await cli(env, ['webmaster', 'create', '--email', email, '--password-stdin'], STRONG);
    // Exit 1: the command could not be done; exit 2: the command line is wrong.
    const cases: Array<[string[], string, RegExp, number]> = [
      [['webmaster', 'token', '--email', 'nobody@example.test'], '', /no webmaster has the email nobody@example\.test/, 1],
      [['webmaster', 'create', '--email', email, '--password-stdin'], STRONG, /already exists/, 1],
      [['webmaster', 'create', '--email', newEmail(), '--password-stdin'], 'short\n', /between 12 and 256 characters/, 1],
      [['webmaster', 'create', '--email', 'not an email', '--password-stdin'], STRONG, /"not an email" is not a valid email address/, 2],
      [['webmaster', 'create'], '', /--email is required/, 2],
      [['webmaster', 'frobnicate', '--email', email], '', /unknown subcommand "frobnicate"/, 2],
      [['webmaster'], '', /a subcommand is required/, 2],
    ];
    for (const [args, stdin, message, code] of cases) {
      const human = await cli(env, args, stdin);
      expect(human.code, args.join(' ')).to.equal(code);
      expect(human.stdout, args.join(' ')).to.equal('');
      expect(human.stderr, args.join(' ')).to.match(message).and.match(/^age-provider webmaster: /);
      const json = await cli(env, [...args, '--json'], stdin);
      expect(json.code).to.equal(code);
      expect(JSON.parse(json.stdout)).to.have.property('error').that.matches(message);
    }
    expect((await cli(env, ['webmaster', 'token', '--email', email, '--bogus'])).code).to.equal(2);
    expect(await inspect((db) => db('webmasters').where('email', 'not an email').first())).to.equal(undefined);
  });
});

describe('age-provider webmaster on an embedded database a server holds', function () {
  this.timeout(120_000);
  let dataDir: string;
  let server: ServeProcess | undefined;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'age-provider-cli-lock-'));
  });
  after(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    await rm(dataDir, { recursive: true, force: true });
  });

  it('tells the operator which process holds it and what to do instead', async () => {
    // A real server process on the embedded database in dataDir.
    server = await serveProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const run = await cli({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, ['webmaster', 'token', '--email', 'someone@example.test']);
    expect(run.code).to.equal(1);
    expect(run.stderr).to.contain(`in use by process ${server.child.pid}`)
      .and.contain('Stop that process first, or run the server and this command against PostgreSQL with DATABASE_URL');
  });
});
