import { text } from 'node:stream/consumers';
import { ConfigError } from '../config/settings.js';
import { packageVersion as version } from '../paths.js';
import { DatabaseInUseError } from '../store/embedded-lock.js';
import { IncompatibleSchemaError } from '../store/migrate.js';
import { parseCommandLine } from './arguments.js';
import { CliError, EXIT, UsageError, type CliIo, type Command } from './command.js';
import { auditCommand } from './commands/audit.js';
import { backupCommand } from './commands/backup.js';
import { evidenceCommand } from './commands/evidence.js';
import { migrateCommand } from './commands/migrate.js';
import { restoreCommand } from './commands/restore.js';
import { secretsCommand } from './commands/secrets.js';
import { serveCommand } from './commands/serve.js';
import { ticketsCommand } from './commands/tickets.js';
import { webmasterCommand } from './commands/webmaster.js';
import { websiteCommand } from './commands/website.js';

/** Every command, in the order the overview lists them (the property tests of the CLI go over this list). */
export const COMMANDS: readonly Command[] = [
  serveCommand,
  migrateCommand,
  secretsCommand,
  webmasterCommand,
  websiteCommand,
  ticketsCommand,
  auditCommand,
  backupCommand,
  restoreCommand,
  evidenceCommand,
];

const overview = (): string => `Usage: age-provider <command> [options]
       age-provider --version

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(12)} ${command.summary}`).join('\n')}

Run "age-provider <command> --help" for a command's options. Every command takes --json.
Exit status: 0 done, 1 failed (the message says why), 2 wrong command line.`;

/** The process's own streams and environment: the entry point adds the storage (bin/age-provider.js). */
export const processIo: Omit<CliIo, 'oidcAdapter'> = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin: () => text(process.stdin),
  env: process.env,
};

/** Errors that are the operator's to fix: one line, no stack trace. Anything else is a bug and keeps its stack. */
const isExplained = (error: unknown): error is Error =>
  error instanceof CliError ||
  error instanceof ConfigError ||
  error instanceof DatabaseInUseError ||
  error instanceof IncompatibleSchemaError;

/** Runs one CLI invocation and returns its exit code. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(`${overview()}\n`);
    return name ? EXIT.ok : EXIT.usage;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`age-provider ${version()}\n`);
    return EXIT.ok;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    io.stderr(`age-provider: unknown command "${name}"\n\n${overview()}\n`);
    return EXIT.usage;
  }
  const json = rest.includes('--json');
  try {
    const args = parseCommandLine(command, rest);
    if (args.values.help) {
      io.stdout(`${command.usage}\n`);
      return EXIT.ok;
    }
    return await command.run(args, io);
  } catch (error) {
    if (!isExplained(error)) throw error;
    if (json) io.stdout(`${JSON.stringify({ error: error.message })}\n`);
    const usage = error instanceof UsageError;
    io.stderr(
      `age-provider ${name}: ${error.message}\n${usage ? `Run "age-provider ${name} --help" for its usage.\n` : ''}`,
    );
    return usage ? EXIT.usage : EXIT.failure;
  }
}
