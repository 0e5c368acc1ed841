import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyTrail } from '../../lib/audit/trail.js';
import { closeAccount, createWebmaster, proveMailbox, setAccountDisabled } from '../../lib/webmasters/accounts.js';
import { authenticateApiToken, createApiKey, LAST_USE_RESOLUTION_SECONDS } from '../../lib/webmasters/api-tokens.js';
import { acceptInvitation, inviteMember, previewInvitation } from '../../lib/webmasters/invitations.js';
import { changeMemberRole, listMembers, removeMember } from '../../lib/webmasters/members.js';
import { deleteWebsite } from '../../lib/websites/index.js';
import { Refusal } from '../../lib/refusal.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClientFixture, TEST_ORIGIN } from '../helpers/fixtures.js';
import { authorizationUrl } from '../helpers/relying-party.js';
import { request } from '../external/api.js';
import { cli } from '../cli/run.js';
import { Browser, decodeHtml, formOf } from '../helpers/browser.js';
import { PLATFORM_PASSWORD } from '../helpers/platform.js';
import { createTeam, insertWebmaster, signedIn } from './fixture.js';

const reaches = async (app: TestApp, browser: Awaited<ReturnType<typeof signedIn>>, path: string): Promise<number> =>
  (await browser.request(path)).status;

/** Polls until `check` holds (a change another instance hears through the database's notifications), at most 10 s. */
async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let waited = 0; waited < 10_000; waited += 100) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

const refusedWith = async (work: Promise<unknown>, kind: Refusal['kind']): Promise<void> => {
  try {
    await work;
  } catch (error) {
    expect(error).to.be.instanceOf(Refusal);
    expect((error as Refusal).kind).to.equal(kind);
    return;
  }
  expect.fail(`not refused (${kind} expected)`);
};

describe('teams: members, invitations, keys and a way out, on two instances of one database', function () {
  this.timeout(180_000);
  let first: TestApp;
  let second: TestApp;
  before(async () => {
    first = await startTestApp();
    second = await startTestApp({}, { shared: first.database });
  });
  after(async () => {
    await second?.close();
    await first?.close();
  });
  const runtime = () => first.provider.runtime;

  it('two owners demoting each other at the same moment leave exactly one owner, every time', async () => {
    for (let round = 0; round < 8; round++) {
      const a = await insertWebmaster(runtime());
      const b = await insertWebmaster(runtime());
      await runtime().db('account_members').insert({ account_id: a.id, webmaster_id: b.id, role: 'owner' });
      const demote = (actor: number, member: number) =>
        changeMemberRole(
          runtime().db,
          runtime().clock,
          a.id,
          member,
          'admin',
          { webmasterId: actor, origin: TEST_ORIGIN },
          TEST_ORIGIN,
        );
      const outcomes = await Promise.allSettled([demote(a.id, b.id), demote(b.id, a.id)]);
      expect(
        outcomes.filter((outcome) => outcome.status === 'fulfilled'),
        `round ${round}`,
      ).to.have.length(1);
      const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason).to.be.instanceOf(Refusal);
      const owners = (await listMembers(runtime().db, a.id)).filter((member) => member.role === 'owner');
      expect(owners, `round ${round}`).to.have.length(1);
    }
  });

  it('the last owner cannot be demoted or leave; an admin touches no owner and makes none', async () => {
    const team = await createTeam(runtime());
    const as = (role: 'owner' | 'admin') => ({
      webmasterId: team.members[role].id,
      origin: { actor: { type: 'webmaster', id: team.members[role].id }, address: '203.0.113.9' } as const,
    });
    await refusedWith(
      changeMemberRole(
        runtime().db,
        runtime().clock,
        team.accountId,
        team.accountId,
        'admin',
        as('owner'),
        TEST_ORIGIN,
      ),
      'conflict',
    );
    await refusedWith(
      changeMemberRole(
        runtime().db,
        runtime().clock,
        team.accountId,
        team.accountId,
        'viewer',
        as('admin'),
        TEST_ORIGIN,
      ),
      'not_permitted',
    );
    await refusedWith(
      changeMemberRole(runtime().db, runtime().clock, team.accountId, team.spare.id, 'owner', as('admin'), TEST_ORIGIN),
      'not_permitted',
    );
    await refusedWith(
      removeMember(runtime().db, runtime().clock, team.accountId, team.accountId, as('owner'), TEST_ORIGIN),
      'conflict',
    );
    await changeMemberRole(
      runtime().db,
      runtime().clock,
      team.accountId,
      team.spare.id,
      'viewer',
      as('admin'),
      TEST_ORIGIN,
    );
    const entry = await runtime()
      .db('audit_entries')
      .where({ chain: `webmaster:${team.accountId}`, action: 'member.role_changed' })
      .first();
    expect(entry.actor_type).to.equal('webmaster');
    expect(entry.actor_id).to.equal(String(team.members.admin.id));
    expect(entry.after).to.deep.equal({ member: team.spare.id, role: 'viewer' });
  });

  it('an invitation joins only the holder of the invited address, once, before it expires; its token is stored hashed', async () => {
    const team = await createTeam(runtime());
    const invited = await insertWebmaster(runtime());
    const stranger = await insertWebmaster(runtime());
    const { token } = await inviteMember(
      runtime().db,
      runtime().clock,
      team.accountId,
      { email: invited.email.toUpperCase(), role: 'developer' },
      { webmasterId: team.accountId, origin: TEST_ORIGIN, role: 'owner' },
    );
    expect(JSON.stringify(await runtime().db('account_invitations').select())).not.to.contain(token);
    expect((await previewInvitation(runtime().db, runtime().clock, token))?.role).to.equal('developer');
    // the link alone lets nobody else in: it was forwarded, leaked, or guessed from another account
    await refusedWith(acceptInvitation(runtime().db, runtime().clock, token, stranger, null), 'not_found');
    const accepts = await Promise.allSettled(
      Array.from({ length: 5 }, () => acceptInvitation(runtime().db, runtime().clock, token, invited, null)),
    );
    expect(accepts.filter((outcome) => outcome.status === 'fulfilled')).to.have.length(1);
    expect(
      (await listMembers(runtime().db, team.accountId)).find((member) => member.webmasterId === invited.id)?.role,
    ).to.equal('developer');
    expect(await previewInvitation(runtime().db, runtime().clock, token)).to.equal(undefined);

    const late = await insertWebmaster(runtime());
    const expiring = await inviteMember(
      runtime().db,
      runtime().clock,
      team.accountId,
      { email: late.email, role: 'viewer' },
      { webmasterId: team.accountId, origin: TEST_ORIGIN, role: 'owner' },
    );
    await runtime()
      .db('account_invitations')
      .where('id', expiring.invitation.id)
      .update({ expires_at: new Date(Date.now() - 1000) });
    await refusedWith(acceptInvitation(runtime().db, runtime().clock, expiring.token, late, null), 'not_found');
    await refusedWith(
      inviteMember(
        runtime().db,
        runtime().clock,
        team.accountId,
        { email: 'not an address', role: 'viewer' },
        { webmasterId: team.accountId, origin: TEST_ORIGIN, role: 'owner' },
      ),
      'invalid',
    );
    await refusedWith(
      inviteMember(
        runtime().db,
        runtime().clock,
        team.accountId,
        { email: late.email, role: 'owner' },
        { webmasterId: team.members.admin.id, origin: TEST_ORIGIN, role: 'admin' },
      ),
      'not_permitted',
    );
  });

  it('an invitation opened before signing in is where the invitee lands after signing in, once; a forged return goes nowhere else', async () => {
    const team = await createTeam(runtime());
    const email = `invitee-${Date.now().toString(36)}@example.test`;
    await createWebmaster(runtime().db, { email, password: PLATFORM_PASSWORD });
    const { token } = await inviteMember(
      runtime().db,
      runtime().clock,
      team.accountId,
      { email, role: 'developer' },
      { webmasterId: team.accountId, origin: TEST_ORIGIN, role: 'owner' },
    );
    const browser = new Browser(first.url);
    const invitation = await browser.open(`/platform/invitation/${token}`);
    expect(invitation.status).to.equal(200);
    expect(decodeHtml(invitation.html)).to.contain(`Sign in with ${email}`);
    // Signed in on the other instance: the way back is the browser's, not one instance's memory.
    const back = new Browser(second.url);
    back.cookies.set('ap_invitation', browser.cookies.get('ap_invitation')!, second.url, '/platform');
    await back.open('/platform/signin');
    const landed = await back.post('/platform/signin', { email, password: PLATFORM_PASSWORD });
    expect(landed.url.pathname, back.trail()).to.equal(`/platform/invitation/${token}`);
    const joined = await back.submit(formOf(landed, { button: 'Join the account' }));
    expect(joined.url.pathname).to.equal('/platform/websites');
    expect((await listMembers(runtime().db, team.accountId)).find((member) => member.email === email)?.role).to.equal(
      'developer',
    );
    // Spent: the next landing is the websites page.
    expect((await back.open('/platform/websites')).url.pathname).to.equal('/platform/websites');

    // A cookie naming anything but an invitation's token leads nowhere but the websites.
    const forged = new Browser(first.url);
    forged.cookies.set('ap_invitation', 'inv_x/../../account/delete', first.url, '/platform');
    await forged.open('/platform/signin');
    const other = await forged.post('/platform/signin', { email, password: PLATFORM_PASSWORD });
    expect(other.url.pathname, forged.trail()).to.equal('/platform/websites');
  });

  it('the owner of an address proving it takes the account back from whoever registered it first, with the members they let in', async () => {
    const team = await createTeam(runtime());
    // registered before addresses were proven: nothing tells its owner from someone who registered the address first
    await runtime().db('webmasters').where('id', team.accountId).update({ email_confirmed_at: null });
    await runtime()
      .db('account_members')
      .where({ account_id: team.accountId, webmaster_id: team.accountId })
      .update({ role: 'viewer' });
    await runtime()
      .db('account_members')
      .where({ account_id: team.accountId, webmaster_id: team.members.admin.id })
      .update({ role: 'owner' });
    const accomplice = await signedIn(second.provider.runtime, second.url, team.members.admin.id, team.accountId);
    expect(await proveMailbox(runtime().db, runtime().clock, team.accountId)).to.equal(true);
    expect(
      (await listMembers(runtime().db, team.accountId)).map((member) => [member.webmasterId, member.role]),
    ).to.deep.equal([[team.accountId, 'owner']]);
    expect(
      await runtime().db('account_invitations').where('account_id', team.accountId).whereNull('accepted_at').first(),
    ).to.equal(undefined);
    expect((await request(second.url, 'GET', '/external/website', { token: team.keys.readWrite })).status).to.equal(
      401,
    );
    expect(
      await reaches(second, accomplice, '/platform/websites'),
      'a member let in before loses the account',
    ).to.equal(303);
  });

  it("a removed member's session and API key stop at once on the other instance too", async () => {
    const team = await createTeam(runtime());
    const member = team.members.developer;
    const { token } = await createApiKey(
      runtime().db,
      runtime().clock,
      team.accountId,
      member.id,
      { name: 'mine', access: 'write', websiteId: null, expiresAt: null },
      TEST_ORIGIN,
    );
    const browser = await signedIn(second.provider.runtime, second.url, member.id, team.accountId);
    expect(await reaches(second, browser, '/platform/websites')).to.equal(200);
    expect((await request(second.url, 'GET', '/external/website', { token })).status).to.equal(200);

    const owner = await signedIn(runtime(), first.url, team.accountId, team.accountId);
    await owner.request('/platform/members');
    const removed = await owner.request(`/platform/members/${member.id}/remove`, { method: 'POST', body: {} });
    expect(removed.status).to.equal(303);
    expect(await reaches(second, browser, '/platform/websites'), 'the session on the other instance').to.equal(303);
    expect(
      (await request(second.url, 'GET', '/external/website', { token })).status,
      'the key on the other instance',
    ).to.equal(401);
    const entry = await runtime()
      .db('audit_entries')
      .where({ chain: `webmaster:${team.accountId}`, action: 'member.removed' })
      .first();
    expect(entry.actor_id).to.equal(String(team.accountId));
  });

  it("a disabled account's sessions and keys stop at once; enabled again, its keys work", async () => {
    const team = await createTeam(runtime());
    const memberBrowser = await signedIn(second.provider.runtime, second.url, team.members.admin.id, team.accountId);
    await setAccountDisabled(runtime().db, runtime().clock, team.accountId, true, TEST_ORIGIN);
    expect((await request(second.url, 'GET', '/external/website', { token: team.keys.readWrite })).status).to.equal(
      401,
    );
    expect(await reaches(second, memberBrowser, '/platform/websites'), 'a member loses the account').to.equal(303);
    await setAccountDisabled(runtime().db, runtime().clock, team.accountId, false, TEST_ORIGIN);
    expect((await request(second.url, 'GET', '/external/website', { token: team.keys.readWrite })).status).to.equal(
      200,
    );
  });

  /** The operator's command line, a process of its own on the instances' database; its --json answer. */
  const operator = async (args: string[]): Promise<Record<string, unknown>> => {
    const dataDir = await mkdtemp(join(tmpdir(), 'age-provider-operator-'));
    try {
      const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: first.database.url, SINGLE_INSTANCE: 'true' };
      const run = await cli(env, [...args, '--json']);
      expect(run.code, run.stderr).to.equal(0);
      return JSON.parse(run.stdout) as Record<string, unknown>;
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  };

  it('the operator removing a member from another process ends their session and key on both instances', async function () {
    // The command line is a process of its own only against PostgreSQL (the embedded database has one owner).
    if (!first.database.url) this.skip();
    const team = await createTeam(runtime());
    const member = team.members.developer;
    const { token } = await createApiKey(
      runtime().db,
      runtime().clock,
      team.accountId,
      member.id,
      { name: 'theirs', access: 'write', websiteId: null, expiresAt: null },
      TEST_ORIGIN,
    );
    const browser = await signedIn(second.provider.runtime, second.url, member.id, team.accountId);
    expect(await reaches(second, browser, '/platform/websites')).to.equal(200);
    expect((await request(first.url, 'GET', '/external/website', { token })).status).to.equal(200);

    const removed = await operator([
      'webmaster',
      'remove-member',
      '--webmaster',
      String(team.accountId),
      '--member',
      member.email,
    ]);
    expect(removed).to.include({ accountId: team.accountId, member: member.id, removed: true });

    expect(await reaches(second, browser, '/platform/websites'), 'their session on the other instance').to.equal(303);
    for (const app of [first, second])
      expect((await request(app.url, 'GET', '/external/website', { token })).status, 'their key').to.equal(401);
    // The owner's key is untouched: only the removed member's access ends.
    expect((await request(second.url, 'GET', '/external/website', { token: team.keys.readWrite })).status).to.equal(
      200,
    );
  });

  it('the operator disabling an account from another process cuts its sessions and keys on both instances', async function () {
    // The command line is a process of its own only against PostgreSQL (the embedded database has one owner).
    if (!first.database.url) this.skip();
    const team = await createTeam(runtime());
    const ownerBrowser = await signedIn(second.provider.runtime, second.url, team.accountId, team.accountId);
    const memberBrowser = await signedIn(first.provider.runtime, first.url, team.members.admin.id, team.accountId);
    for (const app of [first, second])
      expect((await request(app.url, 'GET', '/external/website', { token: team.keys.readWrite })).status).to.equal(200);

    const disabled = await operator(['webmaster', 'disable', '--webmaster', String(team.accountId)]);
    expect(disabled).to.include({ id: team.accountId, disabled: true, changed: true });

    for (const app of [first, second])
      expect((await request(app.url, 'GET', '/external/website', { token: team.keys.readWrite })).status).to.equal(401);
    expect(await reaches(second, ownerBrowser, '/platform/websites'), "the owner's own session").to.equal(303);
    expect(await reaches(first, memberBrowser, '/platform/websites'), "a member's session on it").to.equal(303);
    const entry = await runtime()
      .db('audit_entries')
      .where({ chain: `webmaster:${team.accountId}`, action: 'account.disabled' })
      .first('actor_type', 'actor_id');
    expect(entry).to.deep.equal({ actor_type: 'operator', actor_id: 'age-provider webmaster disable' });
  });

  it("an expired key gets 401; a key's last use is written at most once a minute", async () => {
    const team = await createTeam(runtime());
    const key = await createApiKey(
      runtime().db,
      runtime().clock,
      team.accountId,
      team.accountId,
      { name: 'short', access: 'read', websiteId: null, expiresAt: new Date(Date.now() + 60_000) },
      TEST_ORIGIN,
    );
    expect((await request(first.url, 'GET', '/external/website', { token: key.token })).status).to.equal(200);
    const firstUse = (await runtime().db('api_tokens').where('id', key.key.id).first()).last_used_at as Date;
    expect(firstUse).to.be.instanceOf(Date);
    await request(first.url, 'GET', '/external/website', { token: key.token });
    expect((await runtime().db('api_tokens').where('id', key.key.id).first()).last_used_at).to.deep.equal(firstUse);
    const later = { now: () => new Date(Date.now() + (LAST_USE_RESOLUTION_SECONDS + 1) * 1000) };
    expect(await authenticateApiToken(runtime().db, later, key.token)).to.equal(
      undefined,
      'expired meanwhile (a minute later)',
    );
    await runtime().db('api_tokens').where('id', key.key.id).update({ expires_at: null });
    await authenticateApiToken(runtime().db, later, key.token);
    expect((await runtime().db('api_tokens').where('id', key.key.id).first()).last_used_at).not.to.deep.equal(firstUse);
    await runtime()
      .db('api_tokens')
      .where('id', key.key.id)
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect((await request(first.url, 'GET', '/external/website', { token: key.token })).status).to.equal(401);
  });

  it("a deleted website's OAuth2 client stops at once on the other instance; its audit chain stays and verifies", async () => {
    const team = await createTeam(runtime());
    const client = await createClientFixture(runtime(), team.accountId, { environment: 'LIVE' });
    const authorize = async () =>
      (await fetch(authorizationUrl(second.url, client, 'login'), { redirect: 'manual' })).status;
    expect(await authorize()).to.be.oneOf([302, 303]);
    const owner = await signedIn(runtime(), first.url, team.accountId, team.accountId);
    await owner.request(`/platform/websites/${client.websiteId}/delete`);
    const mismatch = await owner.request(`/platform/websites/${client.websiteId}/delete`, {
      method: 'POST',
      body: { confirm: 'not its name' },
    });
    expect(mismatch.headers.get('location')).to.match(/mismatch=1$/);
    expect(await runtime().db('websites').where('id', client.websiteId).first()).not.to.equal(undefined);
    const deleted = await owner.request(`/platform/websites/${client.websiteId}/delete`, {
      method: 'POST',
      body: { confirm: 'Example Site' },
    });
    expect(deleted.headers.get('location')).to.equal('/platform/websites?saved=deleted');
    expect(await eventually(async () => (await authorize()) === 400), 'the other instance refuses the client').to.equal(
      true,
    );
    const chain = await runtime()
      .db('audit_entries')
      .where('chain', `website:${client.websiteId}`)
      .orderBy('seq')
      .pluck('action');
    expect(chain.at(-1)).to.equal('website.deleted');
    expect((await verifyTrail(runtime().db)).breaks).to.deep.equal([]);
    await refusedWith(deleteWebsite(runtime(), team.accountId, client.websiteId, TEST_ORIGIN), 'not_found');
  });

  it('closing an account erases its personal data; its chains keep a tombstone naming nobody and the trail still verifies', async () => {
    const team = await createTeam(runtime());
    const owner = await runtime().db('webmasters').where('id', team.accountId).first();
    const owners = await signedIn(runtime(), first.url, team.accountId, team.accountId);
    await owners.request(`/platform/websites/${team.client.websiteId}`);
    // an entry carrying an address, as a change through the platform records it
    await owners.request(`/platform/keys/${team.keys.revocable}/revoke`, { method: 'POST', body: {} });
    const admin = await signedIn(runtime(), first.url, team.members.admin.id, team.accountId);
    expect(
      (await admin.request('/platform/account/close', { method: 'POST', body: { confirm: owner.email } })).status,
      'an admin may not',
    ).to.equal(403);
    await owners.request('/platform/account/close');
    const closed = await owners.request('/platform/account/close', {
      method: 'POST',
      body: { confirm: owner.email.toUpperCase() },
    });
    expect(closed.status).to.equal(303);
    expect(await runtime().db('webmasters').where('id', team.accountId).first()).to.equal(undefined);
    expect(await runtime().db('websites').where('webmaster_id', team.accountId).first()).to.equal(undefined);
    expect(await runtime().db('api_tokens').where('webmaster_id', team.accountId).first()).to.equal(undefined);
    const entries = await runtime().db('audit_entries').where('webmaster_id', team.accountId).select();
    expect(entries.length).to.be.greaterThan(0);
    for (const entry of entries)
      expect(entry).to.include({ action: 'chain.erased', actor_type: 'operator', address: null });
    expect(JSON.stringify(entries)).not.to.contain(owner.email).and.not.contain('127.0.0.1');
    expect((await verifyTrail(runtime().db)).breaks).to.deep.equal([]);
    expect((await request(first.url, 'GET', '/external/website', { token: team.keys.readWrite })).status).to.equal(401);
    // the other members keep their own accounts
    expect(await runtime().db('webmasters').where('id', team.members.admin.id).first()).not.to.equal(undefined);
    expect(await reaches(first, admin, '/platform/websites'), 'the admin works in their own account again').to.equal(
      200,
    );
    await refusedWith(closeAccount(runtime().db, runtime().clock, team.accountId), 'not_found');
  });
});
