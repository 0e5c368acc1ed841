import type { ChangeOrigin } from '../../changes.js';
import { systemClock } from '../../clock.js';
import { MAX_PASSWORD_LENGTH, WEBMASTER_MIN_PASSWORD_LENGTH } from '../../webmasters/credentials.js';
import { issueApiToken } from '../../webmasters/api-tokens.js';
import { findWebmasterByEmail } from '../../webmasters/accounts.js';
import { CliError, output, UsageError, type CliIo, type Command } from '../command.js';
import { confirmAddress, createAccount, emailOf, resetPassword, type Values } from './webmaster-access.js';
import { subcommandOf } from '../arguments.js';
import { withConfiguredDatabase } from '../configured-database.js';
import {
  ACCOUNT_OPTIONS_USAGE,
  ACCOUNT_SUBCOMMANDS,
  ACCOUNT_USAGE,
  runAccountSubcommand,
} from './webmaster-accounts.js';

const USAGE = `Usage:
  age-provider webmaster create --email E [--password-stdin] [--json]
  age-provider webmaster reset-password --email E [--json]
  age-provider webmaster confirm --email E [--json]
  age-provider webmaster token --email E [--name N] [--json]
  age-provider webmaster list [--json]
  age-provider webmaster show | disable | enable | members | keys (--webmaster ID | --email E) [--json]
  age-provider webmaster delete (--webmaster ID | --email E) --yes [--json]
  age-provider webmaster add-member (--webmaster ID | --email E) --member M --role R [--json]
  age-provider webmaster invite (--webmaster ID | --email E) --member E --role R [--json]
  age-provider webmaster invitations (--webmaster ID | --email E) [--json]
  age-provider webmaster withdraw-invitation (--webmaster ID | --email E) --invitation ID [--json]
  age-provider webmaster set-role (--webmaster ID | --email E) --member M --role R [--json]
  age-provider webmaster remove-member (--webmaster ID | --email E) --member M [--json]
  age-provider webmaster revoke-key (--webmaster ID | --email E) --key ID [--json]

Subcommands:
  create          Creates a webmaster account and prints a one-time link (24 hours) that sets its password on the
                  platform at /platform; hand it to the webmaster. The address counts as confirmed: you vouch for it.
                  With --password-stdin the password is read from standard input instead (${WEBMASTER_MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH}
                  characters, one trailing newline removed) and no link is made.
  reset-password  Clears the webmaster's password, ends every session of the account on every instance, and prints a
                  one-time link (24 hours) that sets a new one. A second factor, if any, is still asked at sign-in.
  confirm         Vouches for the address of an account registered before addresses were proven: it is confirmed
                  and keeps its password (otherwise the first mailed link or code used for it clears its credentials).
  token           Issues an API key for the External API (Authorization: Bearer <key>), read-write on every website
                  of the account, and prints it once. It replaces the account's key of the same --name (default
                  "API token"), which stops working at once; the account's other keys are untouched.
${ACCOUNT_USAGE}
  Each change is recorded in the account's audit trail as the operator's.

Options:
  --email E          the webmaster's email address
  --name N           the key's name (token only)
${ACCOUNT_OPTIONS_USAGE}
  --password-stdin   read the new password from standard input (create only)
  --json             print one JSON document on stdout:
                       create:         {"id", "email", "createdAt", "link", "linkExpiresAt"} (no link with --password-stdin)
                       reset-password: {"id", "email", "sessionsEnded", "link", "linkExpiresAt"}
                       confirm:        {"id", "email", "changed"}
                       token:          {"webmasterId", "email", "token"}
                       invite:         {"accountId", "invitation", "email", "role", "link", "linkExpiresAt"}
                       the others:     the account, members or keys shown, or what changed

Works against DATABASE_URL while the server runs. The embedded database (no DATABASE_URL) belongs to the one
process that opened it: stop the server first, or run both against PostgreSQL.`;

/** The audit trail's name for a token issued here: the operator, at the command line. */
const OPERATOR_TOKEN: ChangeOrigin = { actor: { type: 'operator', id: 'age-provider webmaster token' }, address: null };

async function token(values: Values, io: CliIo): Promise<number> {
  const email = emailOf(values);
  const issued = await withConfiguredDatabase(io, async ({ db }) => {
    const webmaster = await findWebmasterByEmail(db, email);
    if (!webmaster)
      throw new CliError(`no webmaster has the email ${email} (create one with "age-provider webmaster create")`);
    const name = typeof values.name === 'string' && values.name.trim() ? values.name : undefined;
    return {
      webmasterId: webmaster.id,
      email: webmaster.email,
      token: await issueApiToken(db, systemClock, webmaster.id, OPERATOR_TOKEN, name),
    };
  });
  output(
    io,
    values.json === true,
    issued,
    `New API token for ${issued.email} (shown only this once; the previous token of this name no longer works):\n${issued.token}`,
  );
  return 0;
}

export const webmasterCommand: Command = {
  name: 'webmaster',
  summary:
    'create, list, show, disable, enable or delete webmaster accounts, reset a password, confirm an address; invite and manage members; API keys',
  usage: USAGE,
  options: {
    email: { type: 'string' },
    'password-stdin': { type: 'boolean' },
    json: { type: 'boolean' },
    name: { type: 'string' },
    webmaster: { type: 'string' },
    member: { type: 'string' },
    role: { type: 'string' },
    key: { type: 'string' },
    invitation: { type: 'string' },
    yes: { type: 'boolean' },
  },
  async run({ values, positionals }, io) {
    const subcommand = subcommandOf(webmasterCommand, positionals, [
      'create',
      'reset-password',
      'confirm',
      'token',
      ...ACCOUNT_SUBCOMMANDS,
    ]);
    if (subcommand !== 'create' && values['password-stdin'] !== undefined)
      throw new UsageError('--password-stdin applies to "webmaster create" only');
    if (
      subcommand === 'create' ||
      subcommand === 'reset-password' ||
      subcommand === 'confirm' ||
      subcommand === 'token'
    ) {
      return { create: createAccount, 'reset-password': resetPassword, confirm: confirmAddress, token }[subcommand](
        values,
        io,
      );
    }
    return runAccountSubcommand(subcommand, values, io);
  },
};
