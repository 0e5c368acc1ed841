import { text } from 'node:stream/consumers';
import { parseArgs } from 'node:util';
import { ConfigError } from '../config/load.js';
import { DatabaseInUseError } from '../store/embedded-lock.js';
import { CliError, type CliIo, type Command } from './command.js';
import { migrateCommand } from './commands/migrate.js';
import { serveCommand } from './commands/serve.js';
import { ticketsCommand } from './commands/tickets.js';
import { webmasterCommand } from './commands/webmaster.js';

const COMMANDS: Command[] = [serveCommand, migrateCommand, webmasterCommand, ticketsCommand];

const overview = (): string => `Usage: age-provider <command> [options]

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(12)} ${command.summary}`).join('\n')}

Run "age-provider <command> --help" for a command's options. Every command takes --json.`;

const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin: () => text(process.stdin),
  env: process.env,
};

/** Runs one CLI invocation and returns its exit code. */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(`${overview()}\n`);
    return name ? 0 : 1;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    io.stderr(`age-provider: unknown command "${name}"\n\n${overview()}\n`);
    return 2;
  }
  let args;
  try {
    args = parseArgs({ args: rest, options: { ...command.options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (error) {
    io.stderr(`age-provider ${name}: ${(error as Error).message}\n\n${command.usage}\n`);
    return 2;
  }
  if (args.values.help) {
    io.stdout(`${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof CliError || error instanceof ConfigError || error instanceof DatabaseInUseError) {
      if ((args.values as Record<string, unknown>).json === true) io.stdout(`${JSON.stringify({ error: error.message })}\n`);
      io.stderr(`age-provider ${name}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
