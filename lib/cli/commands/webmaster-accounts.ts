import type { ChangeOrigin } from '../../changes.js';
import { systemClock } from '../../clock.js';
import { endSessions } from '../../platform/sessions.js';
import { Refusal } from '../../refusal.js';
import type { Database } from '../../store/database.js';
import {
  closeAccount,
  findWebmasterByEmail,
  listAccounts,
  setAccountDisabled,
  type AccountSummary,
} from '../../webmasters/accounts.js';
import { listApiKeys, revokeApiKey } from '../../webmasters/api-tokens.js';
import {
  INVITATION_SECONDS,
  invitationUrl,
  inviteMember,
  pendingInvitations,
  withdrawInvitation,
} from '../../webmasters/invitations.js';
import {
  addMemberAsOperator,
  changeMemberRole,
  listMembers,
  membershipsOf,
  removeMember,
} from '../../webmasters/members.js';
import { isRole, ROLES, type Role } from '../../webmasters/roles.js';
import { ID_PATTERN } from '../../websites/schemas/path-parameters.js';
import { idOf } from '../arguments.js';
import { CliError, EXIT, output, UsageError, type CliIo } from '../command.js';
import { withConfiguredDatabase } from '../configured-database.js';

type Values = Record<string, string | boolean | Array<string | boolean> | undefined>;

/** The operator's subcommands on accounts, members and keys (docs/team.md "The operator"). */
export const ACCOUNT_SUBCOMMANDS = [
  'list',
  'show',
  'disable',
  'enable',
  'delete',
  'members',
  'add-member',
  'invite',
  'invitations',
  'withdraw-invitation',
  'set-role',
  'remove-member',
  'keys',
  'revoke-key',
] as const;
export type AccountSubcommand = (typeof ACCOUNT_SUBCOMMANDS)[number];

export const ACCOUNT_USAGE = `  list            Every account (each webmaster is one): id, email, created, disabled, websites, members, active keys.
  show            One account (--webmaster ID or --email E): the above, its members and the accounts it belongs to.
  disable         Disables the account: its sessions end and its API keys stop at once, on every instance; its
                  members can no longer act on it. Its websites' OAuth2 clients keep working (visitors are not cut off).
  enable          Enables a disabled account again.
  delete          Closes the account: its websites (their clients stop at once), members, invitations, keys and
                  sessions are deleted, and its founding login's address and password are erased. Its audit chains
                  are cut to a tombstone that names no person and still verifies ("age-provider audit verify").
                  Asks for nothing: it needs --yes.
  members         The account's members and their roles.
  add-member      Adds the webmaster --member (an id or an email, whose address is confirmed) to the account with
                  the --role owner, admin, developer or viewer; a member already keeps their role.
  invite          Invites the address --member E to the account with --role R and prints the invitation's link (works
                  once, for ${INVITATION_SECONDS / 3600} hours; hand it over): whoever signs in with that address and opens it joins.
                  Without mail configured, create their login first ("webmaster create").
  invitations     The account's pending invitations (never their links): id, address, role, expiry.
  withdraw-invitation
                  Withdraws the pending invitation --invitation ID: its link stops working at once.
  set-role        Gives --member (an id or an email) the --role owner, admin, developer or viewer (an account keeps
                  an owner).
  remove-member   Removes --member from the account: their sessions end and their API keys on it are revoked.
  keys            The account's API keys (never the keys themselves): id, name, access, website, expiry, maker, last use.
  revoke-key      Revokes the account's key --key ID at once.`;

export const ACCOUNT_OPTIONS_USAGE = `  --webmaster ID     the account's id (list shows them); or --email E
  --member M         a member's id or email (add-member, set-role, remove-member); the address to invite (invite)
  --role R           owner, admin, developer or viewer (add-member, invite, set-role)
  --key ID           an API key's id, as "keys" lists it (revoke-key)
  --invitation ID    a pending invitation's id, as "invitations" lists it (withdraw-invitation)
  --yes              confirms "delete"`;

const operator = (subcommand: string): ChangeOrigin => ({
  actor: { type: 'operator', id: `age-provider webmaster ${subcommand}` },
  address: null,
});

/** The account a command line names, by --webmaster ID or --email E. */
async function accountOf(db: Database, values: Values): Promise<AccountSummary> {
  let id: number;
  if (values.webmaster !== undefined) id = idOf('webmaster', values.webmaster);
  else if (typeof values.email === 'string' && values.email.trim()) {
    const found = await findWebmasterByEmail(db, values.email);
    if (!found) throw new CliError(`no webmaster has the email ${values.email.trim()}`);
    id = found.id;
  } else throw new UsageError('--webmaster ID or --email E is required (run "age-provider webmaster --help")');
  const [account] = await listAccounts(db, id);
  if (!account) throw new CliError(`no webmaster has the id ${id}`);
  return account;
}

/** A member by id or email, among the account's members. */
async function memberOf(db: Database, accountId: number, value: unknown): Promise<number> {
  const text = typeof value === 'string' ? value.trim() : '';
  if (!text) throw new UsageError("--member is required: a member's id or email");
  const members = await listMembers(db, accountId);
  const member = new RegExp(ID_PATTERN).test(text)
    ? members.find((candidate) => candidate.webmasterId === Number(text))
    : members.find((candidate) => candidate.email === text.normalize('NFKC').toLowerCase());
  if (!member) throw new CliError(`${text} is not a member of account ${accountId}`);
  return member.webmasterId;
}

/** Any webmaster by id or email (the one add-member adds). */
async function webmasterNamed(db: Database, value: unknown): Promise<number> {
  const text = typeof value === 'string' ? value.trim() : '';
  if (!text) throw new UsageError("--member is required: a webmaster's id or email");
  if (new RegExp(ID_PATTERN).test(text)) {
    const [found] = await listAccounts(db, Number(text));
    if (!found) throw new CliError(`no webmaster has the id ${text}`);
    return found.id;
  }
  const found = await findWebmasterByEmail(db, text);
  if (!found) throw new CliError(`no webmaster has the email ${text}`);
  return found.id;
}

const roleOf = (values: Values): Role => {
  const role = typeof values.role === 'string' ? values.role : '';
  if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  return role;
};

const line = (account: AccountSummary): string =>
  `${String(account.id).padEnd(6)} ${account.email.padEnd(36)} ${account.createdAt.toISOString().slice(0, 10)}  ${account.disabledAt ? 'disabled' : 'active  '}  ` +
  `${account.websites} website(s), ${account.members} member(s), ${account.activeKeys} key(s)`;

const accountJson = (account: AccountSummary) => ({
  id: account.id,
  email: account.email,
  createdAt: account.createdAt.toISOString(),
  disabledAt: account.disabledAt?.toISOString() ?? null,
  websites: account.websites,
  members: account.members,
  activeKeys: account.activeKeys,
});

/** A domain refusal is the operator's to read: one line. */
async function explained<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof Refusal) throw new CliError(error.message);
    throw error;
  }
}

export async function runAccountSubcommand(subcommand: AccountSubcommand, values: Values, io: CliIo): Promise<number> {
  const json = values.json === true;
  await withConfiguredDatabase(io, async ({ config, db }) => {
    if (subcommand === 'list') {
      const accounts = await listAccounts(db);
      return output(
        io,
        json,
        accounts.map(accountJson),
        accounts.length > 0 ? accounts.map(line).join('\n') : 'No webmaster yet.',
      );
    }
    const account = await accountOf(db, values);
    switch (subcommand) {
      case 'show': {
        const [members, memberships] = await Promise.all([listMembers(db, account.id), membershipsOf(db, account.id)]);
        return output(
          io,
          json,
          {
            ...accountJson(account),
            members: members.map((member) => ({ ...member, since: member.since.toISOString() })),
            memberOf: memberships,
          },
          `${line(account)}\nMembers:\n${members.map((member) => `  ${member.webmasterId} ${member.email} ${member.role}`).join('\n')}\n` +
            `Member of:\n${memberships.map((membership) => `  account ${membership.accountId} (${membership.accountEmail}) as ${membership.role}`).join('\n') || '  none'}`,
        );
      }
      case 'disable':
      case 'enable': {
        const disabled = subcommand === 'disable';
        const changed = await setAccountDisabled(db, systemClock, account.id, disabled, operator(subcommand));
        const sessionsEnded = disabled ? await endSessions(db, account.id) : 0;
        return output(
          io,
          json,
          { id: account.id, email: account.email, disabled, changed, sessionsEnded },
          changed
            ? `${disabled ? 'Disabled' : 'Enabled'} account ${account.id} (${account.email}).${disabled ? ` Its ${sessionsEnded} session(s) ended; its API keys no longer work.` : ''}`
            : `Account ${account.id} was already ${disabled ? 'disabled' : 'enabled'}; nothing changed.`,
        );
      }
      case 'delete': {
        if (values.yes !== true)
          throw new UsageError(`deleting account ${account.id} (${account.email}) cannot be undone: add --yes`);
        const closed = await closeAccount(db, systemClock, account.id);
        return output(
          io,
          json,
          { id: account.id, deleted: true, ...closed },
          `Closed account ${account.id}: ${closed.websites} website(s) deleted, its address erased, ${closed.chains} audit chain(s) cut to a tombstone.`,
        );
      }
      case 'members': {
        const members = await listMembers(db, account.id);
        return output(
          io,
          json,
          members.map((member) => ({ ...member, since: member.since.toISOString() })),
          members
            .map((member) => `${String(member.webmasterId).padEnd(6)} ${member.email.padEnd(36)} ${member.role}`)
            .join('\n'),
        );
      }
      case 'add-member': {
        const role = roleOf(values);
        const memberId = await webmasterNamed(db, values.member);
        const added = await explained(() =>
          addMemberAsOperator(db, systemClock, account.id, memberId, role, operator(subcommand)),
        );
        return output(
          io,
          json,
          { accountId: account.id, member: memberId, role, added },
          added
            ? `Webmaster ${memberId} is now a member of account ${account.id} as ${role}.`
            : `Webmaster ${memberId} was a member of account ${account.id} already; their role is unchanged.`,
        );
      }
      case 'invite': {
        const email = typeof values.member === 'string' ? values.member.trim() : '';
        if (!email) throw new UsageError('--member is required: the address to invite');
        const role = roleOf(values);
        const { token, invitation } = await explained(() =>
          inviteMember(
            db,
            systemClock,
            account.id,
            { email, role },
            { webmasterId: null, role: 'owner', origin: operator(subcommand) },
          ),
        );
        const link = invitationUrl(config.issuer, token);
        return output(
          io,
          json,
          {
            accountId: account.id,
            invitation: invitation.id,
            email: invitation.email,
            role: invitation.role,
            link,
            linkExpiresAt: invitation.expiresAt.toISOString(),
          },
          `Invited ${invitation.email} to account ${account.id} as ${invitation.role}.\n` +
            `Invitation link (works once, for ${INVITATION_SECONDS / 3600} hours, for whoever signs in as ${invitation.email}; hand it over):\n${link}`,
        );
      }
      case 'invitations': {
        const pending = await pendingInvitations(db, systemClock, account.id);
        return output(
          io,
          json,
          pending.map((invitation) => ({ ...invitation, expiresAt: invitation.expiresAt.toISOString() })),
          pending.length > 0
            ? pending
                .map(
                  (invitation) =>
                    `${String(invitation.id).padEnd(6)} ${invitation.email.padEnd(36)} ${invitation.role.padEnd(9)} ` +
                    `expires ${invitation.expiresAt.toISOString()}`,
                )
                .join('\n')
            : 'No pending invitation.',
        );
      }
      case 'withdraw-invitation': {
        const text = typeof values.invitation === 'string' ? values.invitation.trim() : '';
        if (!new RegExp(ID_PATTERN).test(text))
          throw new UsageError(
            '--invitation must be a pending invitation\'s id (as "age-provider webmaster invitations" lists it)',
          );
        await explained(() => withdrawInvitation(db, systemClock, account.id, Number(text), operator(subcommand)));
        return output(
          io,
          json,
          { accountId: account.id, invitation: Number(text), withdrawn: true },
          `Withdrew invitation ${text} of account ${account.id}: its link no longer works.`,
        );
      }
      case 'set-role': {
        const role = roleOf(values);
        const memberId = await memberOf(db, account.id, values.member);
        await explained(() =>
          changeMemberRole(db, systemClock, account.id, memberId, role, 'operator', operator(subcommand)),
        );
        return output(
          io,
          json,
          { accountId: account.id, member: memberId, role },
          `Member ${memberId} of account ${account.id} is now ${role}.`,
        );
      }
      case 'remove-member': {
        const memberId = await memberOf(db, account.id, values.member);
        await explained(() => removeMember(db, systemClock, account.id, memberId, 'operator', operator(subcommand)));
        const sessionsEnded = await endSessions(db, memberId);
        return output(
          io,
          json,
          { accountId: account.id, member: memberId, removed: true, sessionsEnded },
          `Removed member ${memberId} from account ${account.id}: their API keys on it are revoked, their ${sessionsEnded} session(s) ended.`,
        );
      }
      case 'keys': {
        const keys = await listApiKeys(db, account.id);
        return output(
          io,
          json,
          keys,
          keys.length > 0
            ? keys
                .map(
                  (key) =>
                    `${String(key.id).padEnd(6)} ${key.name.padEnd(24)} ${key.access === 'read' ? 'read-only ' : 'read-write'} ` +
                    `${key.websiteId === null ? 'every website' : `website ${key.websiteId}`}, by ${key.memberEmail}, ` +
                    `${key.expiresAt ? `expires ${key.expiresAt.toISOString()}` : 'no expiry'}, ${key.lastUsedAt ? `last used ${key.lastUsedAt.toISOString()}` : 'never used'}`,
                )
                .join('\n')
            : 'No active API key.',
        );
      }
      case 'revoke-key': {
        const text = typeof values.key === 'string' ? values.key.trim() : '';
        if (!new RegExp(ID_PATTERN).test(text))
          throw new UsageError('--key must be an API key\'s id (as "age-provider webmaster keys" lists it)');
        await explained(() => revokeApiKey(db, systemClock, account.id, Number(text), operator(subcommand)));
        return output(
          io,
          json,
          { accountId: account.id, key: Number(text), revoked: true },
          `Revoked API key ${text} of account ${account.id}.`,
        );
      }
    }
  });
  return EXIT.ok;
}
