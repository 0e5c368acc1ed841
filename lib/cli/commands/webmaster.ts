import type { ChangeOrigin } from '../../changes.js';
import { systemClock } from '../../clock.js';
import { checkNewCredentials, MAX_PASSWORD_LENGTH, WEBMASTER_MIN_PASSWORD_LENGTH } from '../../webmasters/credentials.js';
import { randomToken } from '../../security/hashing.js';
import { issueApiToken } from '../../webmasters/api-tokens.js';
import { createWebmaster, EmailTakenError, findWebmasterByEmail } from '../../webmasters/accounts.js';
import { CliError, output, UsageError, type CliIo, type Command } from '../command.js';
import { subcommandOf } from '../arguments.js';
import { withConfiguredDatabase } from '../configured-database.js';
import { ACCOUNT_OPTIONS_USAGE, ACCOUNT_SUBCOMMANDS, ACCOUNT_USAGE, runAccountSubcommand } from './webmaster-accounts.js';

const USAGE = `Usage:
  age-provider webmaster create --email E [--password-stdin] [--json]
  age-provider webmaster token --email E [--name N] [--json]
  age-provider webmaster list [--json]
  age-provider webmaster show | disable | enable | members | keys (--webmaster ID | --email E) [--json]
  age-provider webmaster delete (--webmaster ID | --email E) --yes [--json]
  age-provider webmaster set-role (--webmaster ID | --email E) --member M --role R [--json]
  age-provider webmaster remove-member (--webmaster ID | --email E) --member M [--json]
  age-provider webmaster revoke-key (--webmaster ID | --email E) --key ID [--json]

Subcommands:
  create   Registers a webmaster who can then sign in to the platform at /platform.
           With --password-stdin the password is read from standard input (${WEBMASTER_MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters,
           one trailing newline removed); without it a strong password is generated and printed once.
  token    Issues an API key for the External API (Authorization: Bearer <key>), read-write on every website of the
           account, and prints it once. It replaces the account's key of the same --name (default "API token"),
           which stops working at once; the account's other keys are untouched.
${ACCOUNT_USAGE}

Options:
  --email E          the webmaster's email address
  --name N           the key's name (token only)
${ACCOUNT_OPTIONS_USAGE}
  --password-stdin   read the new password from standard input (create only)
  --json             print one JSON document on stdout:
                       create: {"id", "email", "createdAt", "password" (only when generated)}
                       token:  {"webmasterId", "email", "token"}
                       the others: the account, members or keys shown, or what changed

Works against DATABASE_URL while the server runs. The embedded database (no DATABASE_URL) belongs to the one
process that opened it: stop the server first, or run both against PostgreSQL.`;

type Values = Record<string, string | boolean | Array<string | boolean> | undefined>;

function emailOf(values: Values): string {
  const email = typeof values.email === 'string' ? values.email.trim() : '';
  if (!email) throw new UsageError('--email is required (run "age-provider webmaster --help")');
  return email;
}

/** The password from standard input without the newline `echo` or a here-string adds. */
async function passwordFromStdin(io: CliIo): Promise<string> {
  return (await io.readStdin()).replace(/\r?\n$/, '');
}

async function create(values: Values, io: CliIo): Promise<number> {
  const email = emailOf(values);
  const generated = values['password-stdin'] === true ? undefined : randomToken(18);
  const password = generated ?? (await passwordFromStdin(io));
  const problems = checkNewCredentials({ email, password });
  if (problems.includes('email')) throw new UsageError(`"${email}" is not a valid email address`);
  if (problems.includes('password')) {
    throw new CliError(`the password must have between ${WEBMASTER_MIN_PASSWORD_LENGTH} and ${MAX_PASSWORD_LENGTH} characters`);
  }
  const webmaster = await withConfiguredDatabase(io, async ({ db }) => {
    try {
      return await createWebmaster(db, { email, password });
    } catch (error) {
      if (error instanceof EmailTakenError) throw new CliError(`a webmaster with the email ${email} already exists`);
      throw error;
    }
  });
  output(io, values.json === true,
    { id: webmaster.id, email: webmaster.email, createdAt: webmaster.createdAt.toISOString(), ...(generated ? { password: generated } : {}) },
    `Created webmaster ${webmaster.email} (id ${webmaster.id}).${generated ? `\nGenerated password (shown only this once): ${generated}` : ''}`);
  return 0;
}

/** The audit trail's name for a token issued here: the operator, at the command line. */
const OPERATOR_TOKEN: ChangeOrigin = { actor: { type: 'operator', id: 'age-provider webmaster token' }, address: null };

async function token(values: Values, io: CliIo): Promise<number> {
  if (values['password-stdin'] !== undefined) throw new UsageError('--password-stdin applies to "webmaster create" only');
  const email = emailOf(values);
  const issued = await withConfiguredDatabase(io, async ({ db }) => {
    const webmaster = await findWebmasterByEmail(db, email);
    if (!webmaster) throw new CliError(`no webmaster has the email ${email} (create one with "age-provider webmaster create")`);
    const name = typeof values.name === 'string' && values.name.trim() ? values.name : undefined;
    return { webmasterId: webmaster.id, email: webmaster.email, token: await issueApiToken(db, systemClock, webmaster.id, OPERATOR_TOKEN, name) };
  });
  output(io, values.json === true, issued,
    `New API token for ${issued.email} (shown only this once; the previous token of this name no longer works):\n${issued.token}`);
  return 0;
}

export const webmasterCommand: Command = {
  name: 'webmaster',
  summary: 'create, list, show, disable, enable or delete webmaster accounts; their members and API keys',
  usage: USAGE,
  options: {
    email: { type: 'string' }, 'password-stdin': { type: 'boolean' }, json: { type: 'boolean' }, name: { type: 'string' }, webmaster: { type: 'string' },
    member: { type: 'string' }, role: { type: 'string' }, key: { type: 'string' }, yes: { type: 'boolean' },
  },
  async run({ values, positionals }, io) {
    const subcommand = subcommandOf(webmasterCommand, positionals, ['create', 'token', ...ACCOUNT_SUBCOMMANDS]);
    if (subcommand === 'create') return create(values, io);
    if (subcommand === 'token') return token(values, io);
    return runAccountSubcommand(subcommand, values, io);
  },
};
