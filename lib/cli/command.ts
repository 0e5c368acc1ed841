import type { OidcAdapterFactory } from '../store/oidc-payloads.js';
import type { ParseArgsConfig } from 'node:util';

/** What a command writes to: stdout for results (one JSON document with --json), stderr for messages. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** the whole of standard input (e.g. --password-stdin) */
  readStdin: () => Promise<string>;
  env: NodeJS.ProcessEnv;
  /** the storage `serve` runs oidc-provider on, given by the process's entry point (bin/age-provider.js) */
  oidcAdapter: OidcAdapterFactory;
}

export interface Command {
  name: string;
  summary: string;
  /** full --help text */
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** Returns the exit code. Throw UsageError for a wrong command line, CliError for a clear failure message. */
  run(
    args: { values: Record<string, string | boolean | Array<string | boolean> | undefined>; positionals: string[] },
    io: CliIo,
  ): Promise<number>;
}

/** The command could not be carried out (exit 1): a database it cannot reach, an email already taken, ... */
export class CliError extends Error {
  override name = 'CliError';
}

/** The command line itself is wrong (exit 2): a missing or malformed option, an unknown subcommand. */
export class UsageError extends CliError {
  override name = 'UsageError';
}

/** Exit codes, the same for every command. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** Writes a result: JSON on --json, else the human text. */
export function output(io: CliIo, json: boolean, value: unknown, human: string): void {
  io.stdout(json ? `${JSON.stringify(value, null, 2)}\n` : `${human}\n`);
}
