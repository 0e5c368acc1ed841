import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Database } from '../../lib/store/database.js';
import { systemClock } from '../../lib/clock.js';
import { authenticateApiToken } from '../../lib/webmasters/api-tokens.js';
import { authenticateWebmaster } from '../../lib/webmasters/accounts.js';
import { findPasswordLink } from '../../lib/webmasters/password-links.js';
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
    expect(help.stdout)
      .to.contain('age-provider webmaster create --email E [--password-stdin] [--json]')
      .and.contain('age-provider webmaster reset-password --email E [--json]')
      .and.contain('age-provider webmaster confirm --email E [--json]')
      .and.contain('age-provider webmaster token --email E [--name N] [--json]')
      .and.contain('age-provider webmaster delete (--webmaster ID | --email E) --yes [--json]');
    expect((await cli(env, ['webmaster', 'create', '--help'])).stdout).to.equal(help.stdout);
    expect((await cli(env, ['--help'])).stdout).to.match(
      /webmaster\s+create, list, show, disable, enable or delete webmaster accounts, reset a password/,
    );
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

  it('without --password-stdin prints a one-time link that sets the password (24 hours), and records the creation', async () => {
    const email = newEmail();
    const human = await cli(env, ['webmaster', 'create', '--email', email]);
    expect(human.code, human.stderr).to.equal(0);
    expect(human.stdout).to.contain(`Created webmaster ${email}`).and.contain('works once, for 24 hours');
    const token = /\/platform\/password\/([A-Za-z0-9_-]{43})$/m.exec(human.stdout)?.[1];
    expect(token).to.be.a('string');
    expect(await inspect((db) => findPasswordLink(db, systemClock, token!))).to.deep.equal({
      email,
      purpose: 'operator',
    });
    // No password until the link is used; the address counts as confirmed (the operator vouches for it).
    const row = await inspect((db) => db('webmasters').where('email', email).first());
    expect(row.password_hash).to.equal(null);
    expect(row.email_confirmed_at).to.not.equal(null);
    const entry = await inspect((db) => db('audit_entries').where('webmaster_id', row.id).first());
    expect(entry).to.deep.include({
      action: 'webmaster.created',
      actor_type: 'operator',
      actor_id: 'age-provider webmaster create',
    });

    const json = JSON.parse(
      (await cli(env, ['webmaster', 'create', '--email', newEmail(), '--json'])).stdout,
    ) as Record<string, string>;
    expect(Object.keys(json).sort()).to.deep.equal(['createdAt', 'email', 'id', 'link', 'linkExpiresAt']);
    expect(new Date(json.linkExpiresAt!).getTime() - Date.now()).to.be.closeTo(24 * 3600 * 1000, 120_000);
  });

  it('reset-password clears the password, ends the sessions, prints a new link; confirm vouches for an unproven address; both audited', async () => {
    const email = newEmail();
    await cli(env, ['webmaster', 'create', '--email', email, '--password-stdin'], STRONG);
    const id = (await inspect((db) => db('webmasters').where('email', email).first())).id as number;
    await inspect((db) =>
      db('platform_sessions').insert({
        id_hash: `session-of-${id}`,
        webmaster_id: id,
        expires_at: new Date(Date.now() + 3600_000),
      }),
    );
    const reset = await cli(env, ['webmaster', 'reset-password', '--email', email.toUpperCase(), '--json']);
    expect(reset.code, reset.stderr).to.equal(0);
    const result = JSON.parse(reset.stdout) as { id: number; email: string; sessionsEnded: number; link: string };
    expect(result).to.deep.include({ id, email, sessionsEnded: 1 });
    expect(result.link).to.match(/\/platform\/password\/[A-Za-z0-9_-]{43}$/);
    expect(await inspect((db) => authenticateWebmaster(db, email, STRONG))).to.equal(undefined);
    expect(await inspect((db) => db('platform_sessions').where('webmaster_id', id))).to.have.length(0);

    // An account from before addresses were proven: confirm keeps its credentials and says whether it changed.
    await inspect((db) => db('webmasters').where('id', id).update({ email_confirmed_at: null }));
    const confirmed = JSON.parse(
      (await cli(env, ['webmaster', 'confirm', '--email', email, '--json'])).stdout,
    ) as Record<string, unknown>;
    expect(confirmed).to.deep.equal({ id, email, changed: true });
    expect((await cli(env, ['webmaster', 'confirm', '--email', email])).stdout).to.contain(
      'was confirmed already; nothing changed',
    );
    const actions = await inspect((db) => db('audit_entries').where('webmaster_id', id).orderBy('seq').pluck('action'));
    expect(actions).to.deep.equal(['webmaster.created', 'webmaster.password.cleared', 'webmaster.address.confirmed']);
    const unknown = await cli(env, ['webmaster', 'reset-password', '--email', 'nobody@example.test']);
    expect([unknown.code, unknown.stderr]).to.satisfy(
      ([code, stderr]: [number, string]) => code === 1 && /no webmaster has the email/.test(stderr),
    );
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
      [
        ['webmaster', 'token', '--email', 'nobody@example.test'],
        '',
        /no webmaster has the email nobody@example\.test/,
        1,
      ],
      [['webmaster', 'create', '--email', email, '--password-stdin'], STRONG, /already exists/, 1],
      [
        ['webmaster', 'create', '--email', newEmail(), '--password-stdin'],
        'short\n',
        /between 12 and 256 characters/,
        1,
      ],
      [
        ['webmaster', 'create', '--email', 'not an email', '--password-stdin'],
        STRONG,
        /"not an email" is not a valid email address/,
        2,
      ],
      [['webmaster', 'create'], '', /--email is required/, 2],
      [['webmaster', 'frobnicate', '--email', email], '', /unknown subcommand "frobnicate"/, 2],
      [['webmaster'], '', /a subcommand is required/, 2],
    ];
    for (const [args, stdin, message, code] of cases) {
      const human = await cli(env, args, stdin);
      expect(human.code, args.join(' ')).to.equal(code);
      expect(human.stdout, args.join(' ')).to.equal('');
      expect(human.stderr, args.join(' '))
        .to.match(message)
        .and.match(/^age-provider webmaster: /);
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
    const run = await cli({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, [
      'webmaster',
      'token',
      '--email',
      'someone@example.test',
    ]);
    expect(run.code).to.equal(1);
    expect(run.stderr)
      .to.contain(`in use by process ${server.child.pid}`)
      .and.contain('Stop that process first, or run the server and this command against PostgreSQL with DATABASE_URL');
  });
});
