import type { Knex } from 'knex';
import { record } from '../audit/trail.js';
import type { ChangeOrigin } from '../changes.js';
import type { Clock } from '../clock.js';
import { Refusal } from '../refusal.js';
import type { Database } from '../store/database.js';
import { isRole, mayAssign, mayDo, type Role } from './roles.js';

/** A member of an account, as the members page and the CLI list them. */
export interface Member {
  webmasterId: number;
  email: string;
  role: Role;
  since: Date;
}

/** An account a webmaster may act on, with the role they hold there. */
export interface Membership {
  accountId: number;
  /** the address of the account's founding login: how the account is named to its members */
  accountEmail: string;
  role: Role;
}

/** Who asks for a change to the members: the member (their webmaster id) and where from, for the audit trail. */
export interface MemberActor {
  webmasterId: number;
  origin: ChangeOrigin;
}

/** The accounts a webmaster belongs to, their own first, then by when they joined; a disabled account is left out. */
export async function membershipsOf(db: Database, webmasterId: number): Promise<Membership[]> {
  const rows = await db('account_members as m')
    .join('webmasters as a', 'a.id', 'm.account_id')
    .where('m.webmaster_id', webmasterId)
    .whereNull('a.disabled_at')
    .orderByRaw('(m.account_id = m.webmaster_id) desc, m.created_at, m.account_id')
    .select<Array<{ account_id: number; email: string; role: Role }>>('m.account_id', 'a.email', 'm.role');
  return rows.map((row) => ({ accountId: row.account_id, accountEmail: row.email, role: row.role }));
}

export async function listMembers(db: Database, accountId: number): Promise<Member[]> {
  const rows = await db('account_members as m')
    .join('webmasters as w', 'w.id', 'm.webmaster_id')
    .where('m.account_id', accountId)
    .orderBy([{ column: 'm.created_at' }, { column: 'm.webmaster_id' }])
    .select<Array<{ webmaster_id: number; email: string; role: Role; created_at: Date }>>(
      'm.webmaster_id',
      'w.email',
      'm.role',
      'm.created_at',
    );
  return rows.map((row) => ({
    webmasterId: row.webmaster_id,
    email: row.email,
    role: row.role,
    since: new Date(row.created_at),
  }));
}

/**
 * Locks the account's row for the transaction and reads the roles of its members as they are now. Every change to the
 * members takes this lock first, so two changes to one account run one after the other and each sees the other's
 * outcome: two owners demoting each other at the same moment leave one of them owner.
 */
async function lockedRoles(trx: Knex.Transaction, accountId: number): Promise<Map<number, Role>> {
  const account = await trx('webmasters').where('id', accountId).forUpdate().first('id');
  if (!account) throw new Refusal('not_found', 'This account does not exist.');
  const rows = await trx('account_members')
    .where('account_id', accountId)
    .select<Array<{ webmaster_id: number; role: Role }>>('webmaster_id', 'role');
  return new Map(rows.map((row) => [Number(row.webmaster_id), row.role]));
}

/** The actor's role as of the lock: a role taken away a moment ago no longer counts (a session may still show it). */
function actorRole(roles: Map<number, Role>, actor: MemberActor | 'operator'): Role {
  if (actor === 'operator') return 'owner';
  const role = roles.get(actor.webmasterId);
  if (!role) throw new Refusal('not_permitted', 'You are no longer a member of this account.');
  return role;
}

const ownersLeft = (roles: Map<number, Role>, changed: number, role: Role | undefined): number =>
  [...roles].filter(([id, held]) => (id === changed ? role : held) === 'owner').length;

const originOf = (actor: MemberActor | 'operator', operator: ChangeOrigin): ChangeOrigin =>
  actor === 'operator' ? operator : actor.origin;

/** Gives a member another role. Only an owner touches ownership; the account always keeps an owner. */
export async function changeMemberRole(
  db: Database,
  clock: Clock,
  accountId: number,
  memberId: number,
  role: Role,
  actor: MemberActor | 'operator',
  operator: ChangeOrigin,
): Promise<void> {
  if (!isRole(role)) throw new Refusal('invalid', 'Choose one of the roles owner, admin, developer or viewer.');
  await db.transaction(async (trx) => {
    const roles = await lockedRoles(trx, accountId);
    const from = roles.get(memberId);
    if (!from) throw new Refusal('not_found', 'This person is not a member of the account.');
    if (from === role) return;
    if (!mayAssign(actorRole(roles, actor), from, role))
      throw new Refusal('not_permitted', 'Only an owner can give or take away ownership.');
    if (ownersLeft(roles, memberId, role) === 0)
      throw new Refusal('conflict', 'An account always keeps an owner: make another member owner first.');
    await trx('account_members').where({ account_id: accountId, webmaster_id: memberId }).update({ role });
    await record(trx, {
      origin: originOf(actor, operator),
      webmasterId: accountId,
      websiteId: null,
      at: clock.now(),
      action: 'member.role_changed',
      before: { member: memberId, role: from },
      after: { member: memberId, role },
    });
  });
}

/**
 * Removes a member (or lets one leave): their API keys on the account are revoked in the same transaction; the caller
 * ends their sessions. An admin removes no owner; the last owner cannot go.
 */
export async function removeMember(
  db: Database,
  clock: Clock,
  accountId: number,
  memberId: number,
  actor: MemberActor | 'operator',
  operator: ChangeOrigin,
): Promise<void> {
  await db.transaction(async (trx) => {
    const roles = await lockedRoles(trx, accountId);
    const from = roles.get(memberId);
    if (!from) throw new Refusal('not_found', 'This person is not a member of the account.');
    if (memberId === accountId)
      throw new Refusal(
        'conflict',
        "The account's founding login is the account itself: it cannot leave; close the account instead.",
      );
    const leaving = actor !== 'operator' && actor.webmasterId === memberId;
    const role = actorRole(roles, actor);
    if (!leaving && !mayDo(role, 'members'))
      throw new Refusal('not_permitted', 'Your role does not let you remove members.');
    if (!leaving && from === 'owner' && !mayDo(role, 'ownership'))
      throw new Refusal('not_permitted', 'Only an owner can remove an owner.');
    if (ownersLeft(roles, memberId, undefined) === 0)
      throw new Refusal('conflict', 'An account always keeps an owner: make another member owner first.');
    const now = clock.now();
    await trx('account_members').where({ account_id: accountId, webmaster_id: memberId }).delete();
    const keys = await trx('api_tokens')
      .where({ webmaster_id: accountId, member_id: memberId })
      .whereNull('revoked_at')
      .update('revoked_at', now)
      .returning<Array<{ id: number }>>('id');
    await record(trx, {
      origin: originOf(actor, operator),
      webmasterId: accountId,
      websiteId: null,
      at: now,
      action: leaving ? 'member.left' : 'member.removed',
      before: { member: memberId, role: from },
      after: { apiKeysRevoked: keys.map((key) => Number(key.id)) },
    });
  });
}

/** Adds a member with a role, inside the caller's transaction (an invitation accepted); already a member: unchanged. */
export async function addMember(
  trx: Knex.Transaction,
  accountId: number,
  webmasterId: number,
  role: Role,
  at: Date,
): Promise<boolean> {
  const added = await trx('account_members')
    .insert({ account_id: accountId, webmaster_id: webmasterId, role, created_at: at })
    .onConflict(['account_id', 'webmaster_id'])
    .ignore()
    .returning('account_id');
  return added.length > 0;
}

/**
 * The operator adds an existing webmaster to an account with a role (`age-provider webmaster add-member`), audited.
 * Only a confirmed address: an unconfirmed account may be someone else's registration under it (the pre-hijack), and
 * a membership would hand them the account. False when they were a member already (their role is left as it is).
 */
export async function addMemberAsOperator(
  db: Database,
  clock: Clock,
  accountId: number,
  webmasterId: number,
  role: Role,
  operator: ChangeOrigin,
): Promise<boolean> {
  if (!isRole(role)) throw new Refusal('invalid', 'Choose one of the roles owner, admin, developer or viewer.');
  return db.transaction(async (trx) => {
    const roles = await lockedRoles(trx, accountId);
    if (roles.has(webmasterId)) return false;
    const member = await trx('webmasters')
      .where('id', webmasterId)
      .whereNotNull('email_confirmed_at')
      .whereNull('disabled_at')
      .first('id');
    if (!member)
      throw new Refusal(
        'conflict',
        'Only a webmaster whose address is confirmed (and who is not disabled) can be added.',
      );
    const now = clock.now();
    await addMember(trx, accountId, webmasterId, role, now);
    await record(trx, {
      origin: operator,
      webmasterId: accountId,
      websiteId: null,
      at: now,
      action: 'member.added',
      before: null,
      after: { member: webmasterId, role },
    });
    return true;
  });
}
