import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { knexAdapter } from '../../adapters/knex.js';
import type { CliIo } from '../../lib/cli/command.js';
import { main } from '../../lib/cli/main.js';
import { packageRoot } from '../../lib/paths.js';
import { openDatabase, type Database } from '../../lib/store/database.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with captured output, the given stdin, and only the test's environment. */
export async function cli(env: NodeJS.ProcessEnv, args: string[], stdin = ''): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    readStdin: async () => stdin,
    env,
    oidcAdapter: knexAdapter,
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

/**
 * Where a CLI test's commands write: a PostgreSQL database of its own when DATABASE_URL is set, else the embedded
 * database in a temporary DATA_DIR. `inspect` opens it after a command released it.
 */
export interface CliDatabase {
  env: NodeJS.ProcessEnv;
  /** set on PostgreSQL only */
  database: TestDatabase | undefined;
  inspect<T>(work: (db: Database) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function cliDatabase(prefix: string): Promise<CliDatabase> {
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  const database = process.env.DATABASE_URL ? await createTestDatabase() : undefined;
  return {
    // On PostgreSQL the commands run as the one instance using that database (no shared keys needed).
    env: {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      ...(database?.url ? { DATABASE_URL: database.url, SINGLE_INSTANCE: 'true' } : {}),
    },
    database,
    async inspect(work) {
      if (database) return work(database.db);
      const db = await openDatabase({ dataDir });
      try {
        return await work(db);
      } finally {
        await db.destroy();
      }
    },
    async close() {
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ServeProcess {
  child: ChildProcess;
  /** what `serve --json` printed once listening */
  started: { listening: string; operations?: string };
  /** resolves once stderr carried a line containing `text` */
  logged(text: string): Promise<void>;
  /** resolves with the exit code */
  exited: Promise<number | null>;
}

/** Which age-provider runs: its folder, and node's arguments before the CLI's own. */
export interface Program {
  cwd: string;
  nodeArgs: string[];
}

/** The sources of a checkout at `root` (this one by default), run with tsx. */
export function fromSources(root = packageRoot): Program {
  const script = `import { main, processIo } from ${JSON.stringify(join(root, 'lib/cli/main.ts'))}; import { knexAdapter } from ${JSON.stringify(join(root, 'adapters/knex.ts'))};
    process.exitCode = await main(process.argv.slice(1), { ...processIo, oidcAdapter: knexAdapter });`;
  return { cwd: root, nodeArgs: ['--import', 'tsx', '--input-type=module', '-e', script] };
}

/**
 * `age-provider serve --json` as a real child process (signals, exit codes), with only the given environment; run
 * through `wrapper` when given (e.g. `unshare --pid --fork`, whose own child is then the server).
 */
export async function serveProcess(
  env: NodeJS.ProcessEnv,
  wrapper: readonly string[] = [],
  program: Program = fromSources(),
): Promise<ServeProcess> {
  const [command = process.execPath, ...prefix] = [...wrapper, ...(wrapper.length > 0 ? [process.execPath] : [])];
  const child = spawn(command, [...prefix, ...program.nodeArgs, 'serve', '--json'], {
    cwd: program.cwd,
    env: { PATH: process.env.PATH, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const waiting: Array<{ text: string; resolve: () => void }> = [];
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const wait of waiting.filter(({ text }) => stderr.includes(text))) wait.resolve();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = await new Promise<ServeProcess['started']>((resolve, reject) => {
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!stdout.trimEnd().endsWith('}')) return;
      // It prints where it listens, or why it could not start (e.g. DATA_DIR in use).
      const printed = JSON.parse(stdout) as ServeProcess['started'] | { error: string };
      if ('listening' in printed) resolve(printed);
      else reject(new Error(`the server did not start: ${printed.error}`));
    });
    void exited.then((code) => reject(new Error(`the server exited early (${code}): ${stderr}`)));
  });
  return {
    child,
    started,
    exited,
    logged: (text) =>
      stderr.includes(text) ? Promise.resolve() : new Promise((resolve) => waiting.push({ text, resolve })),
  };
}
