import type { ChangeOrigin } from '../../changes.js';
import { systemClock } from '../../clock.js';
import { endSessions } from '../../platform/sessions.js';
import {
  clearPasswordAsOperator,
  confirmAsOperator,
  createWebmasterAsOperator,
  EmailTakenError,
  findWebmasterByEmail,
  type Webmaster,
} from '../../webmasters/accounts.js';
import {
  checkNewCredentials,
  MAX_PASSWORD_LENGTH,
  WEBMASTER_MIN_PASSWORD_LENGTH,
} from '../../webmasters/credentials.js';
import { issuePasswordLink, OPERATOR_LINK_SECONDS, passwordLinkUrl } from '../../webmasters/password-links.js';
import { CliError, output, UsageError, type CliIo } from '../command.js';
import { withConfiguredDatabase, type ConfiguredDatabase } from '../configured-database.js';

/**
 * The operator's side of a webmaster's access (issue 32): create an account, reset its password, vouch for its
 * address. Each is recorded in the account's audit trail as the operator's, naming the command.
 */

export type Values = Record<string, string | boolean | Array<string | boolean> | undefined>;

const operator = (command: string): ChangeOrigin => ({
  actor: { type: 'operator', id: `age-provider webmaster ${command}` },
  address: null,
});

export function emailOf(values: Values): string {
  const email = typeof values.email === 'string' ? values.email.trim() : '';
  if (!email) throw new UsageError('--email is required (run "age-provider webmaster --help")');
  return email;
}

/** The password from standard input without the newline `echo` or a here-string adds. */
async function passwordFromStdin(io: CliIo): Promise<string> {
  return (await io.readStdin()).replace(/\r?\n$/, '');
}

/** A set-password link for the account, printed for the operator to hand over, and when it stops working. */
async function linkFor(
  { config, db }: ConfiguredDatabase,
  email: string,
): Promise<{ link: string; linkExpiresAt: string }> {
  const token = await issuePasswordLink(db, systemClock, email, 'operator');
  return {
    link: passwordLinkUrl(config.issuer, token),
    linkExpiresAt: new Date(systemClock.now().getTime() + OPERATOR_LINK_SECONDS * 1000).toISOString(),
  };
}

const HOURS = OPERATOR_LINK_SECONDS / 3600;

async function accountOf(db: ConfiguredDatabase['db'], email: string): Promise<Webmaster> {
  const webmaster = await findWebmasterByEmail(db, email);
  if (!webmaster)
    throw new CliError(`no webmaster has the email ${email} (create one with "age-provider webmaster create")`);
  return webmaster;
}

/**
 * `create`: the account, confirmed (the operator vouches for the address), and a one-time link that sets its
 * password; with --password-stdin, that password instead and no link.
 */
export async function createAccount(values: Values, io: CliIo): Promise<number> {
  const email = emailOf(values);
  const password = values['password-stdin'] === true ? await passwordFromStdin(io) : undefined;
  const problems = checkNewCredentials({ email, password: password ?? 'x'.repeat(WEBMASTER_MIN_PASSWORD_LENGTH) });
  if (problems.includes('email')) throw new UsageError(`"${email}" is not a valid email address`);
  if (problems.includes('password')) {
    throw new CliError(
      `the password must have between ${WEBMASTER_MIN_PASSWORD_LENGTH} and ${MAX_PASSWORD_LENGTH} characters`,
    );
  }
  const created = await withConfiguredDatabase(io, async (database) => {
    let webmaster;
    try {
      webmaster = await createWebmasterAsOperator(
        database.db,
        systemClock,
        { email, ...(password === undefined ? {} : { password }) },
        operator('create'),
      );
    } catch (error) {
      if (error instanceof EmailTakenError) throw new CliError(`a webmaster with the email ${email} already exists`);
      throw error;
    }
    return {
      id: webmaster.id,
      email: webmaster.email,
      createdAt: webmaster.createdAt.toISOString(),
      ...(password === undefined ? await linkFor(database, email) : {}),
    };
  });
  const link =
    'link' in created
      ? `\nSet-password link (works once, for ${HOURS} hours; hand it to the webmaster):\n${created.link}`
      : '';
  output(io, values.json === true, created, `Created webmaster ${created.email} (id ${created.id}).${link}`);
  return 0;
}

/** `reset-password`: the password cleared, every session ended, and a one-time link printed that sets a new one. */
export async function resetPassword(values: Values, io: CliIo): Promise<number> {
  const email = emailOf(values);
  const reset = await withConfiguredDatabase(io, async (database) => {
    const webmaster = await accountOf(database.db, email);
    await clearPasswordAsOperator(database.db, systemClock, webmaster.id, operator('reset-password'));
    const sessionsEnded = await endSessions(database.db, webmaster.id);
    return { id: webmaster.id, email: webmaster.email, sessionsEnded, ...(await linkFor(database, webmaster.email)) };
  });
  output(
    io,
    values.json === true,
    reset,
    `The password of ${reset.email} is cleared and ${reset.sessionsEnded} session(s) ended.\nSet-password link (works once, for ${HOURS} hours; hand it to the webmaster):\n${reset.link}`,
  );
  return 0;
}

/** `confirm`: the operator vouches for the account's address; its credentials are kept. */
export async function confirmAddress(values: Values, io: CliIo): Promise<number> {
  const email = emailOf(values);
  const confirmed = await withConfiguredDatabase(io, async ({ db }) => {
    const webmaster = await accountOf(db, email);
    return {
      id: webmaster.id,
      email: webmaster.email,
      changed: await confirmAsOperator(db, systemClock, webmaster.id, operator('confirm')),
    };
  });
  output(
    io,
    values.json === true,
    confirmed,
    confirmed.changed
      ? `The address of ${confirmed.email} is confirmed; its password and sessions are kept.`
      : `The address of ${confirmed.email} was confirmed already; nothing changed.`,
  );
  return 0;
}
