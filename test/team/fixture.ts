import type { Runtime } from '../../lib/app/runtime.js';
import { openAccountInSession, openSession } from '../../lib/platform/sessions.js';
import { createApiKey } from '../../lib/webmasters/api-tokens.js';
import { inviteMember } from '../../lib/webmasters/invitations.js';
import { ROLES, type Role } from '../../lib/webmasters/roles.js';
import { createWebhook } from '../../lib/webhooks/endpoints.js';
import { Browser } from '../helpers/browser.js';
import { createClientFixture, TEST_ORIGIN, type ClientFixture } from '../helpers/fixtures.js';

let counter = 0;
const unique = (): string => `${Date.now().toString(36)}-${counter++}`;

/** A webmaster row made directly (no password to check, so no scrypt): the trigger of migration 015 adds its own account. */
export async function insertWebmaster(
  runtime: Runtime,
  email = `member-${unique()}@example.test`,
): Promise<{ id: number; email: string }> {
  const [row] = await runtime
    .db('webmasters')
    .insert({ email, password_hash: 'none' })
    .returning<Array<{ id: number }>>('id');
  return { id: Number(row!.id), email };
}

/** A browser signed in as the webmaster, its session on `accountId`, holding a form token. */
export async function signedIn(
  runtime: Runtime,
  url: string,
  webmasterId: number,
  accountId: number,
): Promise<Browser> {
  const session = await openSession(runtime, webmasterId, { userAgent: 'test', address: '127.0.0.1' }, 'full');
  await openAccountInSession(runtime, session, accountId);
  const browser = new Browser(url);
  browser.cookies.set('ap_platform', session, url, '/platform');
  await browser.request('/platform/account');
  return browser;
}

/** An account with one member of each role, a spare developer to act on, and what its routes name. */
export interface Team {
  accountId: number;
  members: Record<Role, { id: number; email: string }>;
  spare: { id: number; email: string };
  client: ClientFixture;
  webhookId: number;
  keys: { readWrite: string; readOnly: string; revocable: number };
  invitation: { id: number; token: string };
}

export async function createTeam(runtime: Runtime): Promise<Team> {
  const owner = await insertWebmaster(runtime);
  const members = { owner } as Record<Role, { id: number; email: string }>;
  for (const role of ROLES.filter((candidate) => candidate !== 'owner')) {
    members[role] = await insertWebmaster(runtime);
    await runtime.db('account_members').insert({ account_id: owner.id, webmaster_id: members[role].id, role });
  }
  const spare = await insertWebmaster(runtime);
  await runtime.db('account_members').insert({ account_id: owner.id, webmaster_id: spare.id, role: 'developer' });
  const client = await createClientFixture(runtime, owner.id);
  const webhook = await createWebhook(
    runtime,
    owner.id,
    client.websiteId,
    { url: 'https://hooks.example.com/in', events: ['website.updated'] },
    TEST_ORIGIN,
  );
  const key = (access: 'read' | 'write', name: string) =>
    createApiKey(
      runtime.db,
      runtime.clock,
      owner.id,
      owner.id,
      { name, access, websiteId: null, expiresAt: null },
      TEST_ORIGIN,
    );
  const [readWrite, readOnly, revocable] = [
    await key('write', 'rw'),
    await key('read', 'ro'),
    await key('write', 'spare'),
  ];
  const { token, invitation } = await inviteMember(
    runtime.db,
    runtime.clock,
    owner.id,
    { email: `invited-${unique()}@example.test`, role: 'viewer' },
    { webmasterId: owner.id, origin: TEST_ORIGIN, role: 'owner' },
  );
  return {
    accountId: owner.id,
    members,
    spare,
    client,
    webhookId: webhook.id,
    keys: { readWrite: readWrite.token, readOnly: readOnly.token, revocable: revocable.key.id },
    invitation: { id: invitation.id, token },
  };
}

/** Everything a platform route or an External API operation could change, to prove a refused request changed nothing. */
export async function teamSnapshot(runtime: Runtime): Promise<string> {
  const { db } = runtime;
  return JSON.stringify({
    websites: await db('websites').orderBy('id').select(),
    website_keys: await db('website_keys').orderBy(['website_id', 'environment']).select(),
    oauth2_configs: await db('oauth2_configs').orderBy('id').select(),
    oauth2_credentials: await db('oauth2_credentials').orderBy('id').select(),
    // The delivery worker's own bookkeeping (back-off, failing since) moves on its own while the routes are driven.
    webhooks: (await db('webhooks').orderBy('id').select()).map(
      ({ backoff_until: _until, backoff_ms: _ms, failing_since: _since, ...webhook }) => webhook,
    ),
    webhook_messages: await db('webhook_messages').count('* as count'),
    api_tokens: await db('api_tokens')
      .orderBy('id')
      .select('id', 'name', 'revoked_at', 'read_only', 'website_id', 'expires_at'),
    account_members: await db('account_members').orderBy(['account_id', 'webmaster_id']).select(),
    account_invitations: await db('account_invitations').orderBy('id').select('id', 'accepted_at'),
    webmasters: await db('webmasters').orderBy('id').select('id', 'email', 'disabled_at'),
    audit_entries: await db('audit_entries').count('* as count'),
  });
}
