import { expect } from 'chai';
import { verifyTrail } from '../../lib/audit/trail.js';
import { systemClock } from '../../lib/clock.js';
import type { Database } from '../../lib/store/database.js';
import { authenticateApiToken } from '../../lib/webmasters/api-tokens.js';
import { acceptInvitation, previewInvitation } from '../../lib/webmasters/invitations.js';
import { cli, cliDatabase, type CliDatabase } from './run.js';

let counter = 0;
const newEmail = () => `accounts-${Date.now()}-${counter++}@example.test`;
const STRONG = 'a long enough passphrase';

describe('age-provider webmaster list | show | disable | enable | delete, members and keys (operator CLI)', function () {
  this.timeout(180_000);
  let target: CliDatabase;
  let env: NodeJS.ProcessEnv;
  const inspect = <T>(work: (db: Database) => Promise<T>): Promise<T> => target.inspect(work);
  const json = async <T>(args: string[]): Promise<T> => {
    const run = await cli(env, [...args, '--json']);
    expect(run.code, `${args.join(' ')}: ${run.stderr}`).to.equal(0);
    return JSON.parse(run.stdout) as T;
  };

  before(async () => {
    target = await cliDatabase('age-provider-cli-accounts-');
    env = target.env;
  });
  after(() => target.close());

  it("lists and shows accounts, changes members' roles, removes members, lists and revokes keys, each audited", async () => {
    const owner = newEmail();
    const other = newEmail();
    const ownerId = (await json<{ id: number }>(['webmaster', 'create', '--email', owner])).id;
    const otherId = (await json<{ id: number }>(['webmaster', 'create', '--email', other])).id;
    await inspect((db) => db('account_members').insert({ account_id: ownerId, webmaster_id: otherId, role: 'viewer' }));
    const { token } = await json<{ token: string }>(['webmaster', 'token', '--email', owner, '--name', 'deploy']);

    const listed = await json<
      Array<{ id: number; email: string; members: number; activeKeys: number; disabledAt: null }>
    >(['webmaster', 'list']);
    expect(listed.find((account) => account.id === ownerId)).to.include({
      email: owner,
      members: 2,
      activeKeys: 1,
      disabledAt: null,
    });
    const shown = await json<{ members: Array<{ webmasterId: number; role: string }> }>([
      'webmaster',
      'show',
      '--webmaster',
      String(ownerId),
    ]);
    expect(shown.members.map((member) => [member.webmasterId, member.role])).to.deep.equal([
      [ownerId, 'owner'],
      [otherId, 'viewer'],
    ]);
    expect((await cli(env, ['webmaster', 'list'])).stdout).to.contain(owner);

    await json(['webmaster', 'set-role', '--email', owner, '--member', other, '--role', 'owner']);
    expect(
      (await json<Array<{ role: string }>>(['webmaster', 'members', '--email', owner])).map((member) => member.role),
    ).to.deep.equal(['owner', 'owner']);
    await json(['webmaster', 'set-role', '--email', owner, '--member', String(otherId), '--role', 'developer']);
    const lastOwner = await cli(env, ['webmaster', 'set-role', '--email', owner, '--member', owner, '--role', 'admin']);
    expect(lastOwner.code).to.equal(1);
    expect(lastOwner.stderr).to.match(/^age-provider webmaster: An account always keeps an owner/);
    await json(['webmaster', 'remove-member', '--email', owner, '--member', other]);
    expect(await json<unknown[]>(['webmaster', 'members', '--email', owner])).to.have.length(1);

    const keys = await json<Array<{ id: number; name: string; access: string }>>([
      'webmaster',
      'keys',
      '--email',
      owner,
    ]);
    expect(keys.map((key) => [key.name, key.access])).to.deep.equal([['deploy', 'write']]);
    await json(['webmaster', 'revoke-key', '--email', owner, '--key', String(keys[0]!.id)]);
    await inspect(async (db) => {
      expect(await authenticateApiToken(db, systemClock, token)).to.equal(undefined);
      const actions = await db('audit_entries')
        .where('chain', `webmaster:${ownerId}`)
        .orderBy('seq')
        .select('action', 'actor_type', 'actor_id');
      expect(
        actions.filter((entry) => entry.actor_type === 'operator').map((entry) => `${entry.action} ${entry.actor_id}`),
      ).to.include.members([
        'member.role_changed age-provider webmaster set-role',
        'member.removed age-provider webmaster remove-member',
        'api_key.revoked age-provider webmaster revoke-key',
      ]);
    });
  });

  it('invites a member with a printed link that only the invited address can use, audited as the operator', async () => {
    const owner = newEmail();
    const invitee = newEmail();
    const stranger = newEmail();
    const ownerId = (await json<{ id: number }>(['webmaster', 'create', '--email', owner])).id;
    const inviteeId = (await json<{ id: number }>(['webmaster', 'create', '--email', invitee])).id;
    const strangerId = (await json<{ id: number }>(['webmaster', 'create', '--email', stranger])).id;

    // The operator may invite an owner (an admin on the platform may not): it stands above the account's roles.
    const invited = await json<{
      invitation: number;
      email: string;
      role: string;
      link: string;
      linkExpiresAt: string;
    }>(['webmaster', 'invite', '--email', owner, '--member', invitee.toUpperCase(), '--role', 'owner']);
    expect(invited).to.include({ email: invitee, role: 'owner' });
    expect(invited.link).to.match(/\/platform\/invitation\/inv_[A-Za-z0-9_-]{43}$/);
    const hours = (Date.parse(invited.linkExpiresAt) - Date.now()) / 3_600_000;
    expect(hours).to.be.within(47, 48);
    const token = invited.link.split('/').pop()!;

    await inspect(async (db) => {
      // A leaked link opens nothing for another address; the invited address joins once.
      let refused: unknown;
      await acceptInvitation(db, systemClock, token, { id: strangerId, email: stranger }, null).catch(
        (error: unknown) => {
          refused = error;
        },
      );
      expect(refused).to.be.an('error');
      expect(await acceptInvitation(db, systemClock, token, { id: inviteeId, email: invitee }, null)).to.deep.equal({
        accountId: ownerId,
        role: 'owner',
      });
      const [entry] = await db('audit_entries')
        .where({ chain: `webmaster:${ownerId}`, action: 'member.invited' })
        .select('actor_type', 'actor_id');
      expect(entry).to.deep.equal({ actor_type: 'operator', actor_id: 'age-provider webmaster invite' });
    });
    expect(
      (await json<Array<{ webmasterId: number; role: string }>>(['webmaster', 'members', '--email', owner])).map(
        (member) => [member.webmasterId, member.role],
      ),
    ).to.deep.equal([
      [ownerId, 'owner'],
      [inviteeId, 'owner'],
    ]);

    // Inviting a member again is refused in one line; the human output names the link and its lifetime.
    const again = await cli(env, ['webmaster', 'invite', '--email', owner, '--member', invitee, '--role', 'viewer']);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.equal('age-provider webmaster: This address is already a member of the account.\n');
    const human = await cli(env, ['webmaster', 'invite', '--email', owner, '--member', stranger, '--role', 'viewer']);
    expect(human.code, human.stderr).to.equal(0);
    expect(human.stdout).to.contain(`Invited ${stranger} to account ${ownerId} as viewer.`).and.contain('48 hours');
    const strangerLink = human.stdout.trim().split('\n').pop()!;

    // The pending invitations, never their links; one withdrawn stops its link at once, once, audited.
    const pending = await json<Array<{ id: number; email: string; role: string; expiresAt: string }>>([
      'webmaster',
      'invitations',
      '--email',
      owner,
    ]);
    expect(pending.map((invitation) => [invitation.email, invitation.role])).to.deep.equal([[stranger, 'viewer']]);
    expect(JSON.stringify(pending)).not.to.contain(strangerLink.split('/').pop()!);
    const listed = await cli(env, ['webmaster', 'invitations', '--email', owner]);
    expect(listed.stdout).to.match(new RegExp(`^${pending[0]!.id} +${stranger} +viewer +expires 20`));
    // Another account's invitation id is not found through this one.
    const elsewhere = newEmail();
    await json(['webmaster', 'create', '--email', elsewhere]);
    const notHers = await cli(env, [
      'webmaster',
      'withdraw-invitation',
      '--email',
      elsewhere,
      '--invitation',
      String(pending[0]!.id),
    ]);
    expect(notHers.code, notHers.stdout + notHers.stderr).to.equal(1);
    expect(notHers.stderr).to.equal('age-provider webmaster: This invitation is not pending any more.\n');
    expect(
      await json(['webmaster', 'withdraw-invitation', '--email', owner, '--invitation', String(pending[0]!.id)]),
    ).to.deep.equal({ accountId: ownerId, invitation: pending[0]!.id, withdrawn: true });
    expect(await json(['webmaster', 'invitations', '--email', owner])).to.deep.equal([]);
    expect((await cli(env, ['webmaster', 'invitations', '--email', owner])).stdout).to.equal(
      'No pending invitation.\n',
    );
    const twice = await cli(env, [
      'webmaster',
      'withdraw-invitation',
      '--email',
      owner,
      '--invitation',
      String(pending[0]!.id),
    ]);
    expect(twice.code).to.equal(1);
    await inspect(async (db) => {
      expect(await previewInvitation(db, systemClock, strangerLink.split('/').pop()!)).to.equal(undefined);
      const [entry] = await db('audit_entries')
        .where({ chain: `webmaster:${ownerId}`, action: 'member.invitation_withdrawn' })
        .select('actor_type', 'actor_id');
      expect(entry).to.deep.equal({ actor_type: 'operator', actor_id: 'age-provider webmaster withdraw-invitation' });
    });
    const badAddress = await cli(env, [
      'webmaster',
      'invite',
      '--email',
      owner,
      '--member',
      'not-an-address',
      '--role',
      'viewer',
    ]);
    expect(badAddress.code).to.equal(1);
    expect(badAddress.stderr).to.equal('age-provider webmaster: Enter a valid email address.\n');
  });

  it('adds a confirmed webmaster as a member, once, audited; never one whose address is unconfirmed', async () => {
    const owner = newEmail();
    const joiner = newEmail();
    const squatter = newEmail();
    const ownerId = (await json<{ id: number }>(['webmaster', 'create', '--email', owner])).id;
    const joinerId = (await json<{ id: number }>(['webmaster', 'create', '--email', joiner])).id;
    // Registered under an address nobody proved (before addresses were confirmed): maybe not its owner's.
    await inspect((db) =>
      db('webmasters').insert({ email: squatter, password_hash: 'none', email_confirmed_at: null }),
    );

    const added = await json<{ added: boolean; role: string }>([
      'webmaster',
      'add-member',
      '--email',
      owner,
      '--member',
      joiner,
      '--role',
      'developer',
    ]);
    expect(added).to.include({ added: true, role: 'developer' });
    const again = await json<{ added: boolean }>([
      'webmaster',
      'add-member',
      '--webmaster',
      String(ownerId),
      '--member',
      String(joinerId),
      '--role',
      'owner',
    ]);
    expect(again.added, 'a member already keeps their role').to.equal(false);
    const refused = await cli(env, [
      'webmaster',
      'add-member',
      '--email',
      owner,
      '--member',
      squatter,
      '--role',
      'viewer',
    ]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/^age-provider webmaster: Only a webmaster whose address is confirmed/);
    const unknown = await cli(env, [
      'webmaster',
      'add-member',
      '--email',
      owner,
      '--member',
      'nobody@example.test',
      '--role',
      'viewer',
    ]);
    expect(unknown.code).to.equal(1);

    const members = await json<Array<{ email: string; role: string }>>(['webmaster', 'members', '--email', owner]);
    expect(members.map((member) => [member.email, member.role])).to.deep.equal([
      [owner, 'owner'],
      [joiner, 'developer'],
    ]);
    await inspect(async (db) => {
      const entries = await db('audit_entries')
        .where({ chain: `webmaster:${ownerId}`, action: 'member.added' })
        .select('actor_id');
      expect(entries.map((entry) => entry.actor_id)).to.deep.equal(['age-provider webmaster add-member']);
    });
  });

  it('disables an account (its keys stop, its sign-in fails), enables it again, and deletes it leaving a trail that verifies', async () => {
    const email = newEmail();
    await cli(env, ['webmaster', 'create', '--email', email, '--password-stdin'], STRONG);
    const { token, webmasterId } = await json<{ token: string; webmasterId: number }>([
      'webmaster',
      'token',
      '--email',
      email,
    ]);
    const disabled = await json<{ changed: boolean; disabled: boolean }>(['webmaster', 'disable', '--email', email]);
    expect(disabled).to.include({ changed: true, disabled: true });
    expect(
      (await json<{ changed: boolean }>(['webmaster', 'disable', '--email', email])).changed,
      'twice changes nothing',
    ).to.equal(false);
    await inspect(async (db) => expect(await authenticateApiToken(db, systemClock, token)).to.equal(undefined));
    await json(['webmaster', 'enable', '--webmaster', String(webmasterId)]);
    await inspect(async (db) =>
      expect((await authenticateApiToken(db, systemClock, token))?.accountId).to.equal(webmasterId),
    );

    const unconfirmed = await cli(env, ['webmaster', 'delete', '--email', email]);
    expect(unconfirmed.code).to.equal(2);
    expect(unconfirmed.stderr).to.contain('add --yes');
    const deleted = await json<{ deleted: boolean; chains: number; websites: unknown }>([
      'webmaster',
      'delete',
      '--email',
      email,
      '--yes',
    ]);
    expect(deleted.deleted).to.equal(true);
    // A count on both databases (the embedded one answered a result object for a bare delete).
    expect(deleted).to.include({ websites: 0 });
    expect(deleted.chains).to.be.greaterThan(0);
    await inspect(async (db) => {
      expect(await db('webmasters').where('email', email).first()).to.equal(undefined);
      expect((await verifyTrail(db)).breaks).to.deep.equal([]);
    });
    const audit = await cli(env, ['audit', 'verify']);
    expect(audit.code, audit.stdout + audit.stderr).to.equal(0);
    const gone = await cli(env, ['webmaster', 'show', '--webmaster', String(webmasterId)]);
    expect(gone.code).to.equal(1);
    expect(gone.stderr).to.equal(`age-provider webmaster: no webmaster has the id ${webmasterId}\n`);
  });

  it('refuses a wrong command line in one line, exit 2', async () => {
    for (const [args, message] of [
      [['webmaster', 'show'], /--webmaster ID or --email E is required/],
      [['webmaster', 'show', '--webmaster', 'x'], /--webmaster must be a webmaster id/],
      [
        ['webmaster', 'set-role', '--webmaster', '1', '--member', 'a', '--role', 'king'],
        /--role must be one of owner, admin, developer, viewer/,
      ],
      [['webmaster', 'revoke-key', '--webmaster', '1', '--key', '-3'], /--key needs a value|--key must be/],
      [['webmaster', 'invite', '--webmaster', '1', '--role', 'viewer'], /--member is required: the address to invite/],
      [
        ['webmaster', 'withdraw-invitation', '--webmaster', '1', '--invitation', 'inv_x'],
        /--invitation must be a pending invitation's id/,
      ],
      [
        ['webmaster', 'invite', '--webmaster', '1', '--member', 'a@example.test', '--role', 'king'],
        /--role must be one of owner, admin, developer, viewer/,
      ],
    ] as const) {
      const run = await cli(env, [...args]);
      expect(run.code, args.join(' ')).to.equal(2);
      expect(run.stderr).to.match(message);
    }
  });
});
