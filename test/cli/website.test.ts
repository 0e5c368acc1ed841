import { expect } from 'chai';
import type { Database } from '../../lib/store/database.js';
import { cli, cliDatabase, type CliDatabase } from './run.js';

interface Vouching {
  websiteId: number;
  domain: string;
  verified: boolean;
  verifiedBy: string | null;
  changed: boolean;
}

describe('age-provider website vouch-domain (operator CLI)', function () {
  this.timeout(120_000);
  let target: CliDatabase;
  let shop: number;
  let published: number;
  const inspect = <T>(work: (db: Database) => Promise<T>): Promise<T> => target.inspect(work);
  const vouch = async (...args: string[]): Promise<Vouching> => {
    const run = await cli(target.env, ['website', 'vouch-domain', ...args, '--json']);
    expect(run.code, run.stderr).to.equal(0);
    return JSON.parse(run.stdout) as Vouching;
  };
  const stateOf = (websiteId: number) =>
    inspect((db) =>
      db('websites')
        .where({ id: websiteId })
        .first<{ domain_verified_by: string | null; domain_verified_at: Date | null }>(
          'domain_verified_by',
          'domain_verified_at',
        ),
    );
  const trailOf = (websiteId: number) =>
    inspect((db) =>
      db('audit_entries').where({ website_id: websiteId }).orderBy('seq').select<
        Array<{
          actor_type: string;
          actor_id: string;
          address: string | null;
          action: string;
          before: unknown;
          after: unknown;
        }>
      >('actor_type', 'actor_id', 'address', 'action', 'before', 'after'),
    );

  before(async () => {
    target = await cliDatabase('age-provider-vouch-');
    const created = await cli(target.env, ['webmaster', 'create', '--email', 'owner@example.test', '--json']);
    expect(created.code, created.stderr).to.equal(0);
    const webmasterId = (JSON.parse(created.stdout) as { id: number }).id;
    // Two websites as a webmaster leaves them: one on localhost, never verified; one verified by its published token.
    [shop, published] = await inspect(async (db) => {
      const now = new Date();
      const row = (domain: string) => ({
        webmaster_id: webmasterId,
        name: domain,
        domain,
        language: 'auto',
        challenges: '[]',
        regions: '[]',
        created_at: now,
        updated_at: now,
      });
      const [local] = await db('websites').insert(row('localhost')).returning<Array<{ id: number }>>('id');
      const [proven] = await db('websites')
        .insert({ ...row('proven.example.com'), domain_verified_at: now, domain_verified_by: 'published' })
        .returning<Array<{ id: number }>>('id');
      return [Number(local!.id), Number(proven!.id)];
    });
  });
  after(() => target.close());

  it('explains itself with --help and is listed in the overview', async () => {
    const help = await cli(target.env, ['website', '--help']);
    expect(help.code).to.equal(0);
    expect(help.stdout)
      .to.contain('age-provider website vouch-domain --website ID [--revoke] [--json]')
      .and.contain('only --revoke withdraws it');
    expect((await cli(target.env, ['website', 'vouch-domain', '--help'])).stdout).to.equal(help.stdout);
    expect((await cli(target.env, ['--help'])).stdout).to.match(
      /website\s+vouch for a website's domain as the operator/,
    );
  });

  it('vouches for a domain, recorded in the audit trail by the operator; vouching again changes and records nothing', async () => {
    const human = await cli(target.env, ['website', 'vouch-domain', '--website', String(shop)]);
    expect(human.code, human.stderr).to.equal(0);
    expect(human.stdout).to.equal(
      `Vouched for the domain localhost of website ${shop}: visitors now see it verified.\n`,
    );
    expect(await stateOf(shop))
      .to.include({ domain_verified_by: 'operator' })
      .and.have.property('domain_verified_at')
      .that.is.not.equal(null);
    expect(await trailOf(shop)).to.deep.equal([
      {
        actor_type: 'operator',
        actor_id: 'age-provider website vouch-domain',
        address: null,
        action: 'domain.verification',
        before: { domain: 'localhost', verified: false, verifiedBy: null },
        after: { domain: 'localhost', verified: true, verifiedBy: 'operator' },
      },
    ]);

    const again = await vouch('--website', String(shop));
    expect(again).to.deep.equal({
      websiteId: shop,
      domain: 'localhost',
      verified: true,
      verifiedBy: 'operator',
      changed: false,
    });
    expect(await trailOf(shop)).to.have.length(1);
  });

  it('--revoke withdraws it (recorded), then has nothing to withdraw', async () => {
    expect(await vouch('--website', String(shop), '--revoke')).to.deep.equal({
      websiteId: shop,
      domain: 'localhost',
      verified: false,
      verifiedBy: null,
      changed: true,
    });
    expect(await stateOf(shop)).to.deep.equal({ domain_verified_by: null, domain_verified_at: null });
    const trail = await trailOf(shop);
    expect(trail).to.have.length(2);
    expect(trail[1]).to.deep.include({
      actor_type: 'operator',
      before: { domain: 'localhost', verified: true, verifiedBy: 'operator' },
      after: { domain: 'localhost', verified: false, verifiedBy: null },
    });

    const nothing = await cli(target.env, ['website', 'vouch-domain', '--website', String(shop), '--revoke']);
    expect(nothing.stdout)
      .to.contain('The operator did not vouch for the domain localhost')
      .and.contain('nothing changed');
    expect(await trailOf(shop)).to.have.length(2);
  });

  it('--revoke leaves a domain verified by its published token as it is; vouching for it makes the operator its voucher', async () => {
    const revoke = await cli(target.env, ['website', 'vouch-domain', '--website', String(published), '--revoke']);
    expect(revoke.code).to.equal(0);
    expect(revoke.stdout).to.contain('(it is verified by its published token); nothing changed');
    const before = await stateOf(published);
    expect(before.domain_verified_by).to.equal('published');
    expect(await trailOf(published)).to.deep.equal([]);

    expect(await vouch('--website', String(published))).to.include({ verifiedBy: 'operator', changed: true });
    expect(
      (await stateOf(published)).domain_verified_at,
      'verified since the proof, not since the vouching',
    ).to.deep.equal(before.domain_verified_at);
    expect((await trailOf(published))[0]).to.deep.include({
      before: { domain: 'proven.example.com', verified: true, verifiedBy: 'published' },
    });
  });

  it('fails clearly on an unknown website (exit 1) and a wrong command line (exit 2), changing nothing', async () => {
    const before = await inspect((db) => db('audit_entries').count<Array<{ count: string | number }>>('* as count'));
    const cases: Array<[string[], RegExp, number]> = [
      [['website', 'vouch-domain', '--website', '999999'], /no website has the id 999999/, 1],
      [['website', 'vouch-domain', '--website', '999999', '--revoke'], /no website has the id 999999/, 1],
      [['website', 'vouch-domain'], /--website is required/, 2],
      [['website', 'vouch-domain', '--website', 'abc'], /--website must be a website id/, 2],
      [['website', 'vouch-domain', '--website', '0'], /--website must be a website id/, 2],
      [['website', 'vouch-domain', '--website', '1234567890123456'], /--website must be a website id/, 2],
      [['website', 'vouch-domain', '--website'], /--website needs a value/, 2],
      [['website', 'vouch-domain', '--website', String(shop), '--revoke=yes'], /--revoke takes no value/, 2],
      [['website', 'vouch-domain', '--website', String(shop), '--domain', 'localhost'], /unknown option --domain/, 2],
      [['website', 'vouch-domain', 'extra', '--website', String(shop)], /unexpected argument "extra"/, 2],
      [['website', 'delete', '--website', String(shop)], /unknown subcommand "delete"/, 2],
      [['website'], /a subcommand is required/, 2],
    ];
    for (const [args, message, code] of cases) {
      const human = await cli(target.env, args);
      expect(human.code, args.join(' ')).to.equal(code);
      expect(human.stdout, args.join(' ')).to.equal('');
      expect(human.stderr, args.join(' '))
        .to.match(message)
        .and.match(/^age-provider website: /);
      const json = await cli(target.env, [...args, '--json']);
      expect(json.code, args.join(' ')).to.equal(code);
      expect(JSON.parse(json.stdout), args.join(' ')).to.have.property('error').that.matches(message);
    }
    expect(
      await inspect((db) => db('audit_entries').count<Array<{ count: string | number }>>('* as count')),
    ).to.deep.equal(before);
    expect((await stateOf(shop)).domain_verified_by).to.equal(null);
  });

  it('leaves the audit trail intact', async () => {
    const run = await cli(target.env, ['audit', 'verify', '--json']);
    expect(run.code, run.stdout).to.equal(0);
    expect(JSON.parse(run.stdout)).to.include({ intact: true });
  });
});
