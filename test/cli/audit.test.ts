import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { AuditEntry } from '../../lib/audit/trail.js';
import type { Database } from '../../lib/store/database.js';
import { apiClient } from '../external/api.js';
import { cli, cliDatabase, serveProcess, type CliDatabase } from './run.js';

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
    // An account created and four tokens issued at the command line: five entries of its chain, by the operator.
    expect((await cli(target.env, ['webmaster', 'create', '--email', 'audited@example.test'])).code).to.equal(0);
    for (let index = 0; index < 4; index += 1)
      expect((await cli(target.env, ['webmaster', 'token', '--email', 'audited@example.test'])).code).to.equal(0);
  });
  after(() => target.close());

  it('says an untouched trail is intact, with the operator named as the actor', async () => {
    const { code, result, text } = await verify();
    expect(code).to.equal(0);
    expect(result).to.deep.include({ intact: true, chains: 1, entries: 5, breaks: [] });
    expect(text).to.contain('Audit trail intact: 5 entries in 1 chains.');
    const actors = await inspect((db) =>
      db('audit_entries').orderBy('seq').select('actor_type', 'actor_id', 'address', 'action', 'before', 'after'),
    );
    expect(actors[0]).to.deep.include({
      actor_type: 'operator',
      actor_id: 'age-provider webmaster create',
      action: 'webmaster.created',
    });
    expect(actors[1]).to.deep.include({
      actor_type: 'operator',
      actor_id: 'age-provider webmaster token',
      address: null,
      action: 'api_key.created',
      before: null,
    });
    expect(actors[1]!.after).to.deep.include({ token: '(changed)', access: 'write' });
    // The same name again rotates the key: the next entry names the one it revoked.
    expect(actors[2]!.before).to.deep.equal({ revoked: [1] });
  });

  it('finds an entry edited in SQL, names the chain, the entry and its row, and exits 1', async () => {
    const row = await inspect((db) =>
      db('audit_entries')
        .where('seq', 2)
        .first<{ id: number; chain: string; address: string | null }>('id', 'chain', 'address'),
    );
    await inspect((db) => db('audit_entries').where('id', row!.id).update({ address: '203.0.113.9' }));
    const { code, result, text } = await verify();
    expect(code).to.equal(1);
    expect(result.intact).to.equal(false);
    expect(result.breaks).to.deep.equal([
      { chain: row!.chain, seq: 2, id: row!.id, problem: 'entry 2 was edited: its content no longer matches its hash' },
    ]);
    expect(text).to.contain(`${row!.chain}: entry 2 was edited`).and.contain(`row id ${row!.id}`);
    // Put back as it was, the chain checks again: what is reported is the edit, nothing else.
    await inspect((db) => db('audit_entries').where('id', row!.id).update({ address: row!.address }));
    expect((await verify()).code).to.equal(0);
  });

  it("finds a deleted entry, and a deleted newest entry through the chain's head", async () => {
    const chain = (await inspect((db) => db('audit_entries').first<{ chain: string }>('chain')))!.chain;
    await inspect((db) => db('audit_entries').where({ chain, seq: 5 }).delete());
    let { code, result } = await verify();
    expect(code).to.equal(1);
    expect(result.breaks).to.deep.equal([
      {
        chain,
        seq: 5,
        id: null,
        problem: 'the chain ends at entry 4 but its head says 5: the newest entries were deleted or altered',
      },
    ]);
    await inspect((db) => db('audit_entries').where({ chain, seq: 2 }).delete());
    ({ code, result } = await verify());
    expect(code).to.equal(1);
    expect(result.breaks).to.deep.equal([
      { chain, seq: 2, id: null, problem: 'entry 2 is missing (deleted): the next one found is 3' },
    ]);
  });

  it('rejects a wrong command line with exit 2', async () => {
    expect((await cli(target.env, ['audit'])).code).to.equal(2);
    expect((await cli(target.env, ['audit', 'check'])).code).to.equal(2);
    expect((await cli(target.env, ['audit', 'export', '--website', 'abc'])).code).to.equal(2);
    expect((await cli(target.env, ['audit', 'verify', '--website', '1'])).code).to.equal(2);
  });
});

/** An exported line, with the fields docs/audit.md lists. */
type ExportedEntry = Omit<AuditEntry, 'before' | 'after'> & {
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
};

/**
 * docs/audit.md's hash, written from the doc rather than imported (whoever receives an export checks it with their
 * own code): SHA-256 in hex of the entry without `id` and `hash`, as JSON with every object's keys sorted, no spaces.
 */
function documentedHash({ id: _id, hash: _hash, ...content }: ExportedEntry): string {
  const canonical = (value: unknown): string => {
    if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
    if (value === null || typeof value !== 'object') return JSON.stringify(value);
    const object = value as Record<string, unknown>;
    return `{${Object.keys(object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(object[key])}`)
      .join(',')}}`;
  };
  return createHash('sha256').update(canonical(content)).digest('hex');
}

/** Where the exported chain breaks, checked from the lines alone; undefined when it holds. */
function chainBreak(entries: ExportedEntry[]): string | undefined {
  let previous = { seq: 0, hash: '' };
  for (const entry of entries) {
    if (entry.seq !== previous.seq + 1) return `seq ${entry.seq} after ${previous.seq}`;
    if (entry.previousHash !== previous.hash) return `entry ${entry.seq} does not link to the one before`;
    if (documentedHash(entry) !== entry.hash) return `entry ${entry.seq} does not match its hash`;
    previous = entry;
  }
  return undefined;
}

describe('age-provider audit export (operator CLI)', function () {
  this.timeout(120_000);
  let target: CliDatabase;
  let token: string;
  let webmasterId: number;
  let shop: number;
  let other: number;
  const secrets: string[] = [];

  const exported = async (websiteId: number): Promise<ExportedEntry[]> => {
    const run = await cli(target.env, ['audit', 'export', '--website', String(websiteId)]);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout.endsWith('\n')).to.equal(true);
    return run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as ExportedEntry);
  };

  before(async () => {
    target = await cliDatabase('age-provider-audit-export-');
    expect((await cli(target.env, ['webmaster', 'create', '--email', 'exported@example.test'])).code).to.equal(0);
    const issued = JSON.parse(
      (await cli(target.env, ['webmaster', 'token', '--email', 'exported@example.test', '--json'])).stdout,
    ) as { webmasterId: number; token: string };
    ({ token, webmasterId } = issued);
    secrets.push(token);
    // Changes made through the External API of the real server, which then stops (the embedded database is one process's).
    const server = await serveProcess({
      ...target.env,
      SHUTDOWN_DELAY_MS: '0',
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
    });
    try {
      const api = apiClient(server.started.listening, token);
      const ok = async <T>(answer: Promise<{ status: number; body: T }>, status = 200): Promise<T> => {
        const { status: got, body } = await answer;
        expect(got, JSON.stringify(body)).to.equal(status);
        return body;
      };
      shop = (await ok(api.post<{ id: number }>('/website', { name: 'Exported shop', domain: 'exported.example.com' })))
        .id;
      other = (await ok(api.post<{ id: number }>('/website', { name: 'Other shop', domain: 'other.example.com' }))).id;
      await ok(api.patch(`/website/${shop}`, { name: 'Exported shop, renamed', regions: ['FR'] }));
      await ok(api.patch(`/website/${shop}/key/live/regenerate`));
      secrets.push(
        (
          await ok(
            api.post<{ clientSecret: string }>(`/website/${shop}/oauth2/live`, {
              redirectUris: ['https://exported.example.com/cb'],
            }),
          )
        ).clientSecret,
      );
      secrets.push(
        (await ok(api.patch<{ clientSecret: string }>(`/website/${shop}/oauth2/live/regenerate`))).clientSecret,
      );
      const hook = await ok(
        api.post<{ id: number; secret: string }>(`/website/${shop}/webhooks`, {
          url: 'https://hooks.example.com/in',
          events: ['website.updated'],
        }),
        201,
      );
      secrets.push(hook.secret, hook.secret.slice(6));
      await ok(api.delete(`/website/${shop}/webhooks/${hook.id}`), 204);
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).to.equal(0);
    }
  });
  after(() => target.close());

  it("prints a website's whole chain as JSON lines, oldest first, each entry with the documented fields and never a secret", async () => {
    const entries = await exported(shop);
    expect(entries.map((entry) => entry.action)).to.deep.equal([
      'website.created',
      'website.updated',
      'key.regenerated',
      'oauth2.created',
      'oauth2.credentials.regenerated',
      'webhook.created',
      'webhook.deleted',
    ]);
    expect(entries.map((entry) => entry.seq)).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
    for (const entry of entries) {
      expect(entry).to.have.all.keys(
        'id',
        'chain',
        'seq',
        'webmasterId',
        'websiteId',
        'at',
        'actor',
        'address',
        'action',
        'before',
        'after',
        'previousHash',
        'hash',
      );
      expect(entry).to.deep.include({ chain: `website:${shop}`, webmasterId, websiteId: shop });
      expect(entry.actor.type).to.equal('api_token');
      expect(entry.address).to.match(/127\.0\.0\.1$/);
      expect(new Date(entry.at).toISOString()).to.equal(entry.at);
    }
    expect(entries[1]!.before).to.deep.include({ name: 'Exported shop', regions: [] });
    expect(entries[1]!.after).to.deep.include({ name: 'Exported shop, renamed', regions: ['FR'] });
    expect(entries[4]!.after).to.deep.include({ clientSecret: '(changed)' });
    expect(entries[5]!.after).to.deep.include({ secret: '(changed)' });
    const text = JSON.stringify(entries);
    for (const secret of secrets) expect(text).to.not.include(secret);
    // The other website's changes are its own chain.
    expect((await exported(other)).map((entry) => [entry.chain, entry.action])).to.deep.equal([
      [`website:${other}`, 'website.created'],
    ]);
  });

  it("exports a webmaster account's own chain (its API tokens) with --webmaster, checkable the same way, never the token", async () => {
    const run = await cli(target.env, ['audit', 'export', '--webmaster', String(webmasterId)]);
    expect(run.code, run.stderr).to.equal(0);
    const entries = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as ExportedEntry);
    expect(entries.map((entry) => [entry.chain, entry.action, entry.actor.type])).to.deep.equal([
      [`webmaster:${webmasterId}`, 'webmaster.created', 'operator'],
      [`webmaster:${webmasterId}`, 'api_key.created', 'operator'],
    ]);
    expect(chainBreak(entries)).to.equal(undefined);
    expect(run.stdout).to.not.include(token);
  });

  it('says there is nothing to export for a website or webmaster with no entries, and exits 1 with nothing on stdout', async () => {
    for (const [option, id] of [
      ['--website', other + 1000],
      ['--webmaster', webmasterId + 1000],
    ] as const) {
      const run = await cli(target.env, ['audit', 'export', option, String(id)]);
      expect(run.code, option).to.equal(1);
      expect(run.stdout).to.equal('');
      expect(run.stderr).to.contain(`no audit entries for ${option.slice(2)} ${id}`);
    }
  });

  it('needs exactly one of --website and --webmaster (exit 2)', async () => {
    for (const args of [
      ['audit', 'export'],
      ['audit', 'export', '--website', String(shop), '--webmaster', String(webmasterId)],
      ['audit', 'export', '--webmaster', 'me'],
    ]) {
      const run = await cli(target.env, args);
      expect(run.code, args.join(' ')).to.equal(2);
      expect(run.stdout).to.equal('');
    }
  });

  it('exports a chain its receiver checks from the lines alone, as docs/audit.md describes; an edited line shows', async () => {
    const entries = await exported(shop);
    expect(entries[0]!.previousHash).to.equal('');
    expect(chainBreak(entries)).to.equal(undefined);
    const edited = entries.map((entry) => (entry.seq === 3 ? { ...entry, address: '203.0.113.9' } : entry));
    expect(chainBreak(edited)).to.equal('entry 3 does not match its hash');
    expect(chainBreak(entries.filter((entry) => entry.seq !== 4))).to.equal('seq 5 after 3');
    // What the export printed is what the trail holds: the operator's verify agrees.
    expect((await cli(target.env, ['audit', 'verify'])).code).to.equal(0);
  });
});
