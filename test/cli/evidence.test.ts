import { expect } from 'chai';
import { createPublicKey } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JWK } from 'jose';
import { recordChange } from '../../lib/app/changes.js';
import { cli, cliDatabase, type CliDatabase } from './run.js';

const today = (): string => new Date().toISOString().slice(0, 10);

describe('age-provider evidence export and verify (operator CLI)', function () {
  this.timeout(120_000);
  let target: CliDatabase;
  let websiteId: number;
  let keysFile: string;
  const dataDir = () => target.env.DATA_DIR!;

  before(async () => {
    target = await cliDatabase('age-provider-evidence-');
    const created = await cli(target.env, ['webmaster', 'create', '--email', 'evidence@example.test', '--json']);
    expect(created.code, created.stderr).to.equal(0);
    const { id: webmasterId } = JSON.parse(created.stdout) as { id: number };
    websiteId = await target.inspect(async (db) => {
      const [row] = await db('websites')
        .insert({
          webmaster_id: webmasterId,
          name: 'Evidence shop',
          domain: 'evidence.example.com',
          challenges: JSON.stringify(['sandbox']),
          regions: JSON.stringify(['FR']),
        })
        .returning<Array<{ id: number }>>('id');
      const id = Number(row!.id);
      await db.transaction((trx) =>
        recordChange(trx, {
          origin: { actor: { type: 'operator', id: 'test' }, address: null },
          webmasterId,
          websiteId: id,
          at: new Date(),
          action: 'website.created',
          before: null,
          after: { name: 'Evidence shop' },
        }),
      );
      return id;
    });
    // The keys the service publishes: the public half of each key of the secrets generated into DATA_DIR.
    const secrets = JSON.parse(await readFile(join(dataDir(), 'secrets.json'), 'utf8')) as { jwks: { keys: JWK[] } };
    keysFile = join(dataDir(), 'jwks.json');
    await writeFile(
      keysFile,
      JSON.stringify({
        keys: secrets.jwks.keys.map(({ kid, alg, use, ...jwk }) => ({
          ...createPublicKey({ key: jwk as never, format: 'jwk' }).export({ format: 'jwk' }),
          kid,
          alg,
          use,
        })),
      }),
    );
  });
  after(() => target.close());

  it('exports a pack to a file that evidence verify accepts against the published keys', async () => {
    const out = join(dataDir(), 'pack.json');
    const exported = await cli(target.env, [
      'evidence',
      'export',
      '--website',
      String(websiteId),
      '--from',
      today(),
      '--to',
      today(),
      '--out',
      out,
    ]);
    expect(exported.code, exported.stderr).to.equal(0);
    expect(exported.stderr).to.contain(`Evidence pack of website ${websiteId}, ${today()} to ${today()}, written to`);
    const verified = await cli({}, ['evidence', 'verify', out, '--jwks', keysFile]);
    expect(verified.code, verified.stdout).to.equal(0);
    expect(verified.stdout).to.contain('ok   audit chain: 1 entries recomputed from entry 0 to entry 1');
    const json = await cli({}, ['evidence', 'verify', out, '--jwks', keysFile, '--json']);
    expect(JSON.parse(json.stdout)).to.deep.include({ valid: true, keys: keysFile });
  });

  it('prints the pack on standard output without --out', async () => {
    const run = await cli(target.env, [
      'evidence',
      'export',
      '--website',
      String(websiteId),
      '--from',
      today(),
      '--to',
      today(),
    ]);
    expect(run.code, run.stderr).to.equal(0);
    expect(Object.keys(JSON.parse(run.stdout) as object).sort()).to.deep.equal(['payload', 'protected', 'signature']);
  });

  it('says in one line, without a stack, what is wrong: exit 2 for the command line, 1 otherwise', async () => {
    const cases: Array<[string[], number, RegExp]> = [
      [['evidence'], 2, /a subcommand is required/],
      [
        ['evidence', 'export', '--website', String(websiteId), '--from', '2026-02-30', '--to', '2026-03-01'],
        2,
        /day of the calendar/,
      ],
      [
        ['evidence', 'export', '--website', String(websiteId), '--from', '2024-01-01', '--to', '2026-01-01'],
        2,
        /at most 366 days/,
      ],
      [['evidence', 'export', '--website', String(websiteId)], 2, /needs --from/],
      [['evidence', 'export', '--website', '999999', '--from', today(), '--to', today()], 1, /No website 999999/],
      [['evidence', 'verify'], 2, /needs the FILE/],
      [
        ['evidence', 'verify', join(dataDir(), 'missing.json'), '--jwks', keysFile],
        1,
        /cannot read the evidence pack .*ENOENT/,
      ],
      [['evidence', 'verify', keysFile, '--jwks', join(dataDir(), 'none.json')], 1, /cannot read the keys in/],
      [['evidence', 'verify', keysFile], 1, /names no issuer whose keys to fetch/],
      [['evidence', 'verify', keysFile, '--jwks', 'http://127.0.0.1:9/jwks'], 1, /cannot fetch the keys at/],
    ];
    for (const [args, code, message] of cases) {
      const run = await cli(target.env, args);
      expect(run.code, args.join(' ')).to.equal(code);
      expect(run.stderr.split('\n')[0], args.join(' ')).to.match(message);
      expect(run.stderr, args.join(' ')).to.not.match(/\n\s+at /);
    }
  });
});
