import { expect } from 'chai';
import type { Database } from '../../lib/store/database.js';
import { cli, cliDatabase, type CliDatabase } from './run.js';

interface Verified {
  intact: boolean;
  chains: number;
  entries: number;
  breaks: Array<{ chain: string; seq: number; id: number | null; problem: string }>;
}

describe('age-provider audit verify (operator CLI)', function () {
  this.timeout(120_000);
  let target: CliDatabase;
  const inspect = <T>(work: (db: Database) => Promise<T>): Promise<T> => target.inspect(work);
  const verify = async (): Promise<{ code: number; result: Verified; text: string }> => {
    const json = await cli(target.env, ['audit', 'verify', '--json']);
    const text = await cli(target.env, ['audit', 'verify']);
    expect(text.code).to.equal(json.code);
    return { code: json.code, result: JSON.parse(json.stdout) as Verified, text: text.stdout };
  };

  before(async () => {
    target = await cliDatabase('age-provider-audit-');
    // Four tokens issued at the command line: four entries of one webmaster's chain, by the operator.
    expect((await cli(target.env, ['webmaster', 'create', '--email', 'audited@example.test'])).code).to.equal(0);
    for (let index = 0; index < 4; index += 1) expect((await cli(target.env, ['webmaster', 'token', '--email', 'audited@example.test'])).code).to.equal(0);
  });
  after(() => target.close());

  it('says an untouched trail is intact, with the operator named as the actor', async () => {
    const { code, result, text } = await verify();
    expect(code).to.equal(0);
    expect(result).to.deep.include({ intact: true, chains: 1, entries: 4, breaks: [] });
    expect(text).to.contain('Audit trail intact: 4 entries in 1 chains.');
    const actors = await inspect((db) => db('audit_entries').orderBy('seq').select('actor_type', 'actor_id', 'address', 'action', 'before', 'after'));
    expect(actors[0]).to.deep.equal({
      actor_type: 'operator', actor_id: 'age-provider webmaster token', address: null, action: 'api_token.issued', before: null, after: { token: '(changed)' },
    });
    expect(actors[1]!.before).to.deep.equal({ token: 'revoked' });
  });

  it('finds an entry edited in SQL, names the chain, the entry and its row, and exits 1', async () => {
    const row = await inspect((db) => db('audit_entries').where('seq', 2).first<{ id: number; chain: string; address: string | null }>('id', 'chain', 'address'));
    await inspect((db) => db('audit_entries').where('id', row!.id).update({ address: '203.0.113.9' }));
    const { code, result, text } = await verify();
    expect(code).to.equal(1);
    expect(result.intact).to.equal(false);
    expect(result.breaks).to.deep.equal([{ chain: row!.chain, seq: 2, id: row!.id, problem: 'entry 2 was edited: its content no longer matches its hash' }]);
    expect(text).to.contain(`${row!.chain}: entry 2 was edited`).and.contain(`row id ${row!.id}`);
    // Put back as it was, the chain checks again: what is reported is the edit, nothing else.
    await inspect((db) => db('audit_entries').where('id', row!.id).update({ address: row!.address }));
    expect((await verify()).code).to.equal(0);
  });

  it('finds a deleted entry, and a deleted newest entry through the chain\'s head', async () => {
    const chain = (await inspect((db) => db('audit_entries').first<{ chain: string }>('chain')))!.chain;
    await inspect((db) => db('audit_entries').where({ chain, seq: 4 }).delete());
    let { code, result } = await verify();
    expect(code).to.equal(1);
    expect(result.breaks).to.deep.equal([{ chain, seq: 4, id: null, problem: 'the chain ends at entry 3 but its head says 4: the newest entries were deleted or altered' }]);
    await inspect((db) => db('audit_entries').where({ chain, seq: 2 }).delete());
    ({ code, result } = await verify());
    expect(code).to.equal(1);
    expect(result.breaks).to.deep.equal([{ chain, seq: 2, id: null, problem: 'entry 2 is missing (deleted): the next one found is 3' }]);
  });

  it('rejects a wrong command line with exit 2', async () => {
    expect((await cli(target.env, ['audit'])).code).to.equal(2);
    expect((await cli(target.env, ['audit', 'check'])).code).to.equal(2);
    expect((await cli(target.env, ['audit', 'export', '--website', 'abc'])).code).to.equal(2);
    expect((await cli(target.env, ['audit', 'verify', '--website', '1'])).code).to.equal(2);
  });
});
