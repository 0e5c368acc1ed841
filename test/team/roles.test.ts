import { expect } from 'chai';
import { OPERATIONS } from '../../lib/external/operations.js';
import { platformRouteTable } from '../../lib/platform/surface.js';
import type { PlatformRoute } from '../../lib/platform/route-table.js';
import { createApiKey } from '../../lib/webmasters/api-tokens.js';
import { mayDo, ROLES, type Role } from '../../lib/webmasters/roles.js';
import { Browser } from '../helpers/browser.js';
import { useApp } from '../helpers/app.js';
import { createClientFixture, TEST_ORIGIN } from '../helpers/fixtures.js';
import { request } from '../external/api.js';
import { createTeam, signedIn, teamSnapshot, type Team } from './fixture.js';

/** Weakest first: a refused attempt runs before an allowed one may change what the next attempt meets. */
const ROLES_WEAKEST_FIRST = [...ROLES].reverse();

/** A route's pattern with every parameter named by the team's own records. */
const fill = (pattern: string, team: Team): string =>
  pattern
    .replace(':website_id', String(team.client.websiteId))
    .replace(':webhook_id', String(team.webhookId))
    .replace(':message_id', `msg_${'0'.repeat(32)}`)
    .replace(':message', `msg_${'0'.repeat(32)}`)
    .replace(':verification_id', 'vrf_none')
    .replace(':verification', 'vrf_none')
    .replace(':id', String(team.client.websiteId))
    .replace(':environment', 'test')
    .replace(':webhook', String(team.webhookId))
    .replace(':key', String(team.keys.revocable))
    .replace(':member', String(team.spare.id))
    .replace(':invitation', String(team.invitation.id))
    .replace(':account', String(team.accountId))
    .replace(':token', team.invitation.token);

const allows = (role: Role, route: Pick<PlatformRoute, 'access'>): boolean =>
  route.access === 'public' || route.access === 'signed-in' || mayDo(role, route.access);

describe('roles: every route of the platform and the External API, driven as each role and as a read-only key', function () {
  this.timeout(600_000);
  const app = useApp();

  it('the platform: a role without the permission a route declares gets 403 and changes nothing; a role with it is let through', async () => {
    const routes = platformRouteTable(app.provider.runtime);
    // the route table is the source: new routes are driven without a new test
    expect(routes.map((route) => `${route.method} ${route.path}`)).to.include.members([
      'POST /members/:member/remove',
      'POST /keys',
      'POST /websites/:id/delete',
      'POST /account/close',
    ]);
    // A viewer reads: the only posts it may make change nothing but its own place (which account it works in, leaving one,
    // accepting an invitation sent to its own address).
    // The webmaster's own sign-in (password, sessions, second factor) is theirs whatever their role on an account.
    const SELF_SERVICE = [
      'POST /accounts/:account/open',
      'POST /members/leave',
      'POST /invitation/:token',
      'POST /account/password',
      'POST /account/sessions/end',
      'POST /account/sessions/end-others',
      'POST /account/second-factor/totp',
      'POST /account/second-factor/totp/confirm',
      'POST /account/second-factor/remove',
      'POST /account/second-factor/passkey/options',
      'POST /account/second-factor/passkey',
      'POST /account/second-factor/passkey/remove',
      'POST /signin/second-factor',
      'POST /signin/second-factor/passkey/options',
      'POST /signin/second-factor/passkey',
    ];
    const viewerPosts = routes.filter(
      (route) => route.method === 'POST' && route.access !== 'public' && allows('viewer', route),
    );
    expect(
      viewerPosts.map((route) => `${route.method} ${route.path}`).filter((route) => !SELF_SERVICE.includes(route)),
      'posts a viewer may make',
    ).to.deep.equal([]);
    const problems: string[] = [];
    for (const route of routes.filter((candidate) => candidate.access !== 'public')) {
      // a team of its own per route: an allowed change (a removal, a revocation) never spills into the next route's check
      const team = await createTeam(app.provider.runtime);
      const path = `/platform${fill(route.path, team)}`;
      for (const role of ROLES_WEAKEST_FIRST) {
        const browser = await signedIn(app.provider.runtime, app.url, team.members[role].id, team.accountId);
        const before = await teamSnapshot(app.provider.runtime);
        const response = await browser.request(path, route.method === 'POST' ? { method: 'POST', body: {} } : {});
        const where = `${role} ${route.method} ${path} (${route.access}) -> ${response.status}`;
        if (allows(role, route)) {
          if (response.status === 403 || response.status >= 500)
            problems.push(`${where}: refused or failed though allowed`);
        } else {
          if (response.status !== 403) problems.push(`${where}: not refused`);
          if ((await teamSnapshot(app.provider.runtime)) !== before) problems.push(`${where}: changed something`);
        }
      }
    }
    expect(problems, `\n${problems.join('\n')}\n`).to.deep.equal([]);
  });

  it('the platform: a public page is one a stranger gets without being sent to sign in (but /platform itself, which is where it sends them)', async () => {
    const team = await createTeam(app.provider.runtime);
    const stranger = new Browser(app.url);
    const publicPages = platformRouteTable(app.provider.runtime).filter(
      (candidate) => candidate.access === 'public' && candidate.method === 'GET' && candidate.path !== '/',
    );
    expect(publicPages.map((route) => route.path)).to.include.members(['/signin', '/invitation/:token']);
    for (const route of publicPages) {
      const response = await stranger.request(`/platform${fill(route.path, team)}`);
      expect(response.headers.get('location') ?? '', route.path).not.to.match(/\/platform\/signin/);
    }
  });

  it('the External API: a read-only key, and a read-write key whose member is now a viewer, change nothing; both read', async () => {
    const team = await createTeam(app.provider.runtime);
    const runtime = app.provider.runtime;
    const viewerKey = await createApiKey(
      runtime.db,
      runtime.clock,
      team.accountId,
      team.members.developer.id,
      { name: 'demoted', access: 'write', websiteId: null, expiresAt: null },
      TEST_ORIGIN,
    );
    await runtime
      .db('account_members')
      .where({ account_id: team.accountId, webmaster_id: team.members.developer.id })
      .update({ role: 'viewer' });
    const problems: string[] = [];
    for (const token of [team.keys.readOnly, viewerKey.token]) {
      for (const operation of OPERATIONS) {
        const before = await teamSnapshot(runtime);
        const response = await request(
          app.url,
          operation.method.toUpperCase(),
          `/external${fill(operation.path, team)}`,
          { token, ...(operation.body ? { json: {} } : {}) },
        );
        const where = `${operation.operationId} (${operation.access}) -> ${response.status}`;
        if (operation.access === 'change') {
          if (response.status !== 403) problems.push(`${where}: not refused`);
          if ((await teamSnapshot(runtime)) !== before) problems.push(`${where}: changed something`);
        } else if (response.status === 403 || response.status >= 500)
          problems.push(`${where}: refused or failed though reading`);
      }
    }
    expect(problems, `\n${problems.join('\n')}\n`).to.deep.equal([]);
  });

  it('the External API: a key for one website reaches no other, lists only its own and creates none', async () => {
    const team = await createTeam(app.provider.runtime);
    const runtime = app.provider.runtime;
    const other = await createClientFixture(runtime, team.accountId);
    const { token } = await createApiKey(
      runtime.db,
      runtime.clock,
      team.accountId,
      team.accountId,
      { name: 'one website', access: 'write', websiteId: team.client.websiteId, expiresAt: null },
      TEST_ORIGIN,
    );
    const listed = await request<Array<{ id: number }>>(app.url, 'GET', '/external/website', { token });
    expect(listed.body.map((website) => website.id)).to.deep.equal([team.client.websiteId]);
    expect((await request(app.url, 'GET', `/external/website/${team.client.websiteId}`, { token })).status).to.equal(
      200,
    );
    for (const operation of OPERATIONS.filter((candidate) => candidate.path.includes(':website_id'))) {
      const before = await teamSnapshot(runtime);
      const path = `/external${fill(operation.path, team)}`.replace(
        `/website/${team.client.websiteId}`,
        `/website/${other.websiteId}`,
      );
      const response = await request(app.url, operation.method.toUpperCase(), path, {
        token,
        ...(operation.body ? { json: {} } : {}),
      });
      expect(response.status, `${operation.operationId} on another website`).to.equal(403);
      expect(await teamSnapshot(runtime)).to.equal(before);
    }
    expect(
      (await request(app.url, 'POST', '/external/website', { token, json: { name: 'x', domain: 'x.example.com' } }))
        .status,
    ).to.equal(403);
  });

  it("a viewer sees no secret; a developer sees the ACTIVE configuration's client secret, as the API returns it to a read-write key", async () => {
    const team = await createTeam(app.provider.runtime);
    const runtime = app.provider.runtime;
    const secret = team.client.clientSecret;
    const pages = [
      '/platform/websites',
      ...['', '/integrate', '/settings', '/webhooks', '/activity'].map(
        (tab) => `/platform/websites/${team.client.websiteId}${tab}`,
      ),
    ];
    for (const [role, shown] of [
      ['viewer', false],
      ['developer', true],
      ['owner', true],
    ] as const) {
      const browser = await signedIn(runtime, app.url, team.members[role].id, team.accountId);
      const seen = [];
      for (const path of pages) if ((await (await browser.request(path)).text()).includes(secret)) seen.push(path);
      if (shown) expect(seen, role).to.include('/platform/websites');
      else expect(seen, role).to.deep.equal([]);
    }
    const path = `/external/website/${team.client.websiteId}/oauth2/test`;
    expect(
      (await request<{ clientSecret?: string }>(app.url, 'GET', path, { token: team.keys.readWrite })).body
        .clientSecret,
    ).to.equal(secret);
    const readOnly = await request<{ clientSecret?: string; clientId?: string }>(app.url, 'GET', path, {
      token: team.keys.readOnly,
    });
    expect(readOnly.status).to.equal(200);
    expect(readOnly.body).not.to.have.property('clientSecret');
    expect(readOnly.body.clientId).to.equal(team.client.clientId);
  });
});
