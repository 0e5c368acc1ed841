import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { expect } from 'chai';
import type { JWK } from 'jose';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { cli, serveProcess, type ServeProcess } from './run.js';

const QUIET = { LOG_LEVEL: 'silent', DATA_DIR: '/nonexistent/age-provider-never-created' };

const publishedKids = async (server: ServeProcess): Promise<string[]> => {
  const response = await fetch(`${server.started.listening}/v1/oauth2/jwks`);
  const { keys } = (await response.json()) as { keys: JWK[] };
  for (const key of keys) expect(key, 'a published key is public').not.to.have.any.keys('d', 'p', 'q');
  return keys.map((key) => key.kid!);
};

describe('age-provider secrets', function () {
  this.timeout(180_000);

  describe('its output starts the service', () => {
    let dataDir: string;
    let database: TestDatabase | undefined;
    const servers: ServeProcess[] = [];
    before(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'age-provider-secrets-'));
      database = process.env.DATABASE_URL ? await createTestDatabase() : undefined;
    });
    after(async () => {
      for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL');
      await Promise.all(servers.map((server) => server.exited));
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('prints all three secrets as an environment file that instances sharing PostgreSQL start from', async () => {
      const run = await cli(QUIET, ['secrets']);
      expect(run.code).to.equal(0);
      // Read as Node's own --env-file reader reads it, not by our code.
      const variables = parseEnv(run.stdout);
      expect(variables).to.have.keys('COOKIE_KEYS', 'JWKS', 'SEALING_KEY');
      const jwks = JSON.parse(variables.JWKS!) as { keys: JWK[] };
      expect(jwks.keys).to.have.length(1);
      expect(jwks.keys[0]).to.include({ kty: 'RSA', alg: 'RS256', use: 'sig' }).and.to.have.property('d');
      expect(Buffer.from(variables.SEALING_KEY!, 'base64')).to.have.length(32);

      // On PostgreSQL, without SINGLE_INSTANCE: two instances sharing the database, as production runs (the embedded
      // database belongs to one process, so one instance there).
      const env = { ...variables, LOG_LEVEL: 'silent', ...(database?.url ? { DATABASE_URL: database.url } : {}) };
      const count = database ? 2 : 1;
      for (let index = 0; index < count; index++)
        servers.push(await serveProcess({ ...env, DATA_DIR: join(dataDir, String(index)) }));
      for (const server of servers) {
        expect(await publishedKids(server)).to.deep.equal([jwks.keys[0]!.kid]);
        expect((await fetch(`${server.started.listening}/readyz`)).status).to.equal(200);
      }
    });
  });

  it('prints the same variables as one JSON object with --json, new ones at every call', async () => {
    const [first, second] = await Promise.all([cli(QUIET, ['secrets', '--json']), cli(QUIET, ['secrets', '--json'])]);
    const one = JSON.parse(first.stdout) as Record<string, string>;
    const two = JSON.parse(second.stdout) as Record<string, string>;
    expect(one).to.have.keys('COOKIE_KEYS', 'JWKS', 'SEALING_KEY');
    expect(one.COOKIE_KEYS).to.have.length.of.at.least(32).and.not.equal(two.COOKIE_KEYS);
    expect(one.SEALING_KEY).not.to.equal(two.SEALING_KEY);
  });

  it('names the variable when a configured secret lacks what the service needs', async () => {
    const publicOnly = JSON.parse(parseEnv((await cli(QUIET, ['secrets'])).stdout).JWKS!) as { keys: JWK[] };
    const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicKey } = publicOnly.keys[0]!;
    const run = await cli({ ...QUIET, JWKS: JSON.stringify({ keys: [publicKey] }) }, ['migrate']);
    expect(run.code).to.equal(1);
    expect(run.stderr).to.equal(
      `age-provider migrate: invalid configuration: JWKS (keys/0) must have required property 'd'\n`,
    );
  });

  describe('rotate', () => {
    const rotate = async (env: NodeJS.ProcessEnv, ...args: string[]): Promise<NodeJS.Dict<string>> => {
      const run = await cli({ ...QUIET, ...env }, ['secrets', 'rotate', ...args]);
      expect(run.code, run.stderr).to.equal(0);
      return parseEnv(run.stdout);
    };
    const kids = (jwks: string): string[] => (JSON.parse(jwks) as { keys: JWK[] }).keys.map((key) => key.kid!);

    it('publishes a new signing key after the current one, moves it first, then drops the old one', async () => {
      const { JWKS: start } = parseEnv((await cli(QUIET, ['secrets'])).stdout);
      const [old] = kids(start!);
      const added = (await rotate({ JWKS: start }, 'jwks', 'add')).JWKS!;
      const [kept, fresh] = kids(added);
      expect(kept).to.equal(old);
      expect(fresh).to.be.a('string').and.not.equal(old);
      const switched = (await rotate({ JWKS: added }, 'jwks', 'switch')).JWKS!;
      expect(kids(switched)).to.deep.equal([fresh, old]);
      expect(kids((await rotate({ JWKS: switched }, 'jwks', 'retire')).JWKS!)).to.deep.equal([fresh]);
    });

    it('rotates COOKIE_KEYS the same way', async () => {
      const added = (await rotate({ COOKIE_KEYS: 'a'.repeat(32) }, 'cookie-keys', 'add')).COOKIE_KEYS!.split(',');
      expect(added[0]).to.equal('a'.repeat(32));
      const switched = (await rotate({ COOKIE_KEYS: added.join(',') }, 'cookie-keys', 'switch')).COOKIE_KEYS!;
      expect(switched).to.equal(`${added[1]!},${added[0]!}`);
      expect((await rotate({ COOKIE_KEYS: switched }, 'cookie-keys', 'retire')).COOKIE_KEYS).to.equal(added[1]);
    });

    it('refuses a step that does not apply, a missing or bad current value, and an unknown secret', async () => {
      const key = 'a'.repeat(32);
      const failures: Array<[NodeJS.ProcessEnv, string[], number, string]> = [
        [{ COOKIE_KEYS: key }, ['cookie-keys', 'switch'], 1, 'only one key: "switch" follows "add"'],
        [
          { COOKIE_KEYS: `${key},${'b'.repeat(32)}` },
          ['cookie-keys', 'add'],
          1,
          'a rotation is under way (2 keys): finish it with "switch" and "retire" first',
        ],
        [{}, ['jwks', 'add'], 1, 'JWKS is not set: "rotate" starts from the value every instance has now'],
        [
          { COOKIE_KEYS: 'short' },
          ['cookie-keys', 'add'],
          1,
          'invalid configuration: COOKIE_KEYS (0) must be comma-separated keys of at least 32 characters',
        ],
        [
          {},
          ['sealing-key', 'add'],
          2,
          'rotate what? "jwks" or "cookie-keys" (SEALING_KEY does not rotate, see docs/configuration.md)',
        ],
        [{ COOKIE_KEYS: key }, ['cookie-keys', 'promote'], 2, 'which step? add, switch, retire'],
      ];
      for (const [env, args, code, message] of failures) {
        const run = await cli({ ...QUIET, ...env }, ['secrets', 'rotate', ...args]);
        expect(run.code, args.join(' ')).to.equal(code);
        expect(run.stdout).to.equal('');
        expect(run.stderr.split('\n')[0]).to.equal(`age-provider secrets: ${message}`);
      }
    });
  });
});
