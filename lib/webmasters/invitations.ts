import { record } from '../audit/trail.js';
import type { ChangeOrigin } from '../changes.js';
import { addSeconds, type Clock } from '../clock.js';
import { Refusal } from '../refusal.js';
import { randomToken, sha256 } from '../security/hashing.js';
import { normalizeIdentifier } from '../security/identifiers.js';
import type { Database } from '../store/database.js';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { addMember } from './members.js';
import { mayAssign, ROLES, type Role } from './roles.js';

/** An invitation's link works this long, once. */
export const INVITATION_SECONDS = 48 * 3600;
/** The token in an invitation's link: 32 random bytes, recognisable (only its SHA-256 is stored). */
const TOKEN_PREFIX = 'inv_';
const TOKEN_SHAPE = /^inv_[A-Za-z0-9_-]{43}$/;

const ajv = new Ajv();
addFormats.default(ajv, ['email']);
/** The page an invitation's link opens: the token is its last segment. */
export const invitationUrl = (issuer: string, token: string): string =>
  `${issuer.replace(/\/$/, '')}/platform/invitation/${token}`;

/**
 * Who invites: a member with their role (webmasterId, recorded as the inviter), or the operator at the command line
 * (webmasterId null: the operator stands above the account's roles, as for set-role, and may invite an owner).
 */
interface Inviter {
  webmasterId: number | null;
  role: Role;
  origin: ChangeOrigin;
}

/** An invitation as asked for: the same schema for the platform's form and the command line. */
const validInvitation = ajv.compile<{ email: string; role: Role }>({
  type: 'object',
  required: ['email', 'role'],
  properties: { email: { type: 'string', format: 'email', maxLength: 254 }, role: { enum: [...ROLES] } },
});

/** A pending invitation, as the members page lists it (never its token). */
export interface PendingInvitation {
  id: number;
  email: string;
  role: Role;
  expiresAt: Date;
}

/** What the invitation's page shows before it is accepted. */
export interface InvitationPreview {
  accountEmail: string;
  email: string;
  role: Role;
  expiresAt: Date;
}

/**
 * Invites an address to the account with a role; returns the token of the link to mail to it (the caller mails it
 * and shows it to nobody). A new invitation to the same address replaces the pending one. An admin invites no owner.
 */
export async function inviteMember(
  db: Database,
  clock: Clock,
  accountId: number,
  input: { email: string; role: string },
  actor: Inviter,
): Promise<{ token: string; invitation: PendingInvitation }> {
  const asked = { email: normalizeIdentifier(String(input.email).trim()), role: input.role };
  if (!validInvitation(asked)) {
    throw new Refusal(
      'invalid',
      validInvitation.errors?.[0]?.instancePath === '/role'
        ? 'Choose one of the roles owner, admin, developer or viewer.'
        : 'Enter a valid email address.',
    );
  }
  const { email, role } = asked;
  if (!mayAssign(actor.role, 'viewer', role)) throw new Refusal('not_permitted', 'Only an owner can invite an owner.');
  const token = randomToken(32, TOKEN_PREFIX);
  const now = clock.now();
  const invitation = await db.transaction(async (trx) => {
    await trx('webmasters').where('id', accountId).forUpdate().first('id');
    const member = await trx('account_members as m')
      .join('webmasters as w', 'w.id', 'm.webmaster_id')
      .where({ 'm.account_id': accountId, 'w.email': email })
      .first('m.webmaster_id');
    if (member) throw new Refusal('conflict', 'This address is already a member of the account.');
    await trx('account_invitations').where({ account_id: accountId, email }).whereNull('accepted_at').delete();
    const [row] = await trx('account_invitations')
      .insert({
        account_id: accountId,
        email,
        role,
        token_hash: sha256(token),
        invited_by: actor.webmasterId,
        created_at: now,
        expires_at: addSeconds(now, INVITATION_SECONDS),
      })
      .returning<Array<{ id: number }>>('id');
    await record(trx, {
      origin: actor.origin,
      webmasterId: accountId,
      websiteId: null,
      at: now,
      action: 'member.invited',
      before: null,
      after: { invitation: Number(row!.id), role },
    });
    return { id: Number(row!.id), email, role, expiresAt: addSeconds(now, INVITATION_SECONDS) };
  });
  return { token, invitation };
}

export async function pendingInvitations(db: Database, clock: Clock, accountId: number): Promise<PendingInvitation[]> {
  const rows = await db('account_invitations')
    .where('account_id', accountId)
    .whereNull('accepted_at')
    .where('expires_at', '>', clock.now())
    .orderBy('id')
    .select<Array<{ id: number; email: string; role: Role; expires_at: Date }>>('id', 'email', 'role', 'expires_at');
  return rows.map((row) => ({
    id: Number(row.id),
    email: row.email,
    role: row.role,
    expiresAt: new Date(row.expires_at),
  }));
}

/** Withdraws a pending invitation: its link stops working. */
export async function withdrawInvitation(
  db: Database,
  clock: Clock,
  accountId: number,
  invitationId: number,
  origin: ChangeOrigin,
): Promise<void> {
  await db.transaction(async (trx) => {
    // The deleted rows, not a count: a bare delete() answers a count on pg but a result object on the embedded
    // database, which let another account's or a spent invitation pass as withdrawn there.
    const deleted = await trx('account_invitations')
      .where({ account_id: accountId, id: invitationId })
      .whereNull('accepted_at')
      .delete()
      .returning('id');
    if (deleted.length === 0) throw new Refusal('not_found', 'This invitation is not pending any more.');
    await record(trx, {
      origin,
      webmasterId: accountId,
      websiteId: null,
      at: clock.now(),
      action: 'member.invitation_withdrawn',
      before: { invitation: invitationId },
      after: null,
    });
  });
}

const live = (db: Database, clock: Clock, token: string) =>
  db('account_invitations as i')
    .join('webmasters as a', 'a.id', 'i.account_id')
    .whereNull('a.disabled_at')
    .where('i.token_hash', sha256(token))
    .whereNull('i.accepted_at')
    .where('i.expires_at', '>', clock.now());

/** The invitation a link names while it can still be accepted; a malformed token never reaches the database. */
export async function previewInvitation(
  db: Database,
  clock: Clock,
  token: string,
): Promise<InvitationPreview | undefined> {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const row = await live(db, clock, token).first<
    { account_email: string; email: string; role: Role; expires_at: Date } | undefined
  >('a.email as account_email', 'i.email', 'i.role', 'i.expires_at');
  return (
    row && { accountEmail: row.account_email, email: row.email, role: row.role, expiresAt: new Date(row.expires_at) }
  );
}

/**
 * Accepts an invitation for the signed-in webmaster. The link alone is not enough: the webmaster must hold the
 * invited address, so a forwarded or leaked link lets nobody else in. Single use under concurrency: the conditional
 * update lets exactly one acceptance through. Returns the account joined.
 */
export async function acceptInvitation(
  db: Database,
  clock: Clock,
  token: string,
  webmaster: { id: number; email: string },
  address: string | null,
): Promise<{ accountId: number; role: Role }> {
  if (!TOKEN_SHAPE.test(token)) throw new Refusal('not_found', 'This invitation link is not valid (any more).');
  const now = clock.now();
  return db.transaction(async (trx) => {
    const [taken] = await trx('account_invitations')
      .where('token_hash', sha256(token))
      .whereNull('accepted_at')
      .where('expires_at', '>', now)
      .where('email', normalizeIdentifier(webmaster.email))
      .whereNotIn('account_id', trx('webmasters').whereNotNull('disabled_at').select('id'))
      .update('accepted_at', now)
      .returning<Array<{ id: number; account_id: number; role: Role }>>(['id', 'account_id', 'role']);
    if (!taken)
      throw new Refusal(
        'not_found',
        'This invitation link is not valid (any more), or it was sent to another address than the one you are signed in with.',
      );
    const accountId = Number(taken.account_id);
    await addMember(trx, accountId, webmaster.id, taken.role, now);
    await record(trx, {
      origin: { actor: { type: 'webmaster', id: webmaster.id }, address },
      webmasterId: accountId,
      websiteId: null,
      at: now,
      action: 'member.joined',
      before: { invitation: Number(taken.id) },
      after: { member: webmaster.id, role: taken.role },
    });
    return { accountId, role: taken.role };
  });
}
