import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import { packageRoot } from '../lib/paths.js';
import { round } from './flows.js';

export interface StartupFailure {
  what: Startup['what'];
  run: Startup['run'];
  error: string;
}

export interface Startup {
  what: 'npm start (demo)' | 'age-provider serve';
  run: 'cold' | 'warm';
  /** from spawning node to the service answering */
  readyMs: number;
  /** resident memory once ready */
  rssMb: number;
  /** from SIGINT to a clean exit (code 0) */
  stopMs: number;
  exitCode: number | null;
}

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

const rssMb = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  return round(Number(line?.replace(/\D+/g, '') ?? NaN) / 1024);
};

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

async function until(child: ChildProcess, ready: () => Promise<boolean>, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await ready())) {
    if (child.exitCode !== null) throw new Error(`the process exited with ${child.exitCode} before it was ready`);
    if (Date.now() > deadline) throw new Error(`not ready within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Starts the compiled demo or `serve`, waits until it answers, reads its RSS, stops it with SIGINT. */
async function measure(what: Startup['what'], run: Startup['run'], env: NodeJS.ProcessEnv): Promise<Startup> {
  const port = await freePort();
  const script = what === 'age-provider serve' ? ['bin/age-provider.js', 'serve'] : ['dist/examples/demo/main.js'];
  const started = performance.now();
  const child = spawn(process.execPath, script, {
    cwd: packageRoot,
    env: { ...env, PORT: String(port), LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let errors = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  try {
    // The demo is ready when it prints its next steps (both servers listening, records seeded); serve when /readyz says so.
    await until(
      child,
      what === 'age-provider serve'
        ? () => answers(`http://127.0.0.1:${port}/readyz`)
        : async () => output.includes('Press Ctrl-C') && (await answers(`http://127.0.0.1:${port + 1}/`)),
      120_000,
    );
    const readyMs = round(performance.now() - started, 0);
    const rss = rssMb(child.pid!);
    const stopping = performance.now();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    const exitCode = await exited;
    return { what, run, readyMs, rssMb: rss, stopMs: round(performance.now() - stopping, 0), exitCode };
  } catch (error) {
    const cause = errors.split('\n').find((line) => /Error\b/.test(line));
    throw new Error(`${(error as Error).message}${cause ? ` (${cause.trim()})` : ''}`);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

/** A new, empty PostgreSQL database beside DATABASE_URL's (so the cold start migrates it), dropped afterwards. */
async function withFreshPostgres<T>(adminUrl: string, use: (url: string) => Promise<T>): Promise<T> {
  const name = `ap_bench_${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return await use(url.toString());
  } finally {
    await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.destroy();
  }
}

/**
 * Cold (empty DATA_DIR and database: keys generated, migrations, demo records seeded) and warm (the same again)
 * starts of the compiled demo and of `age-provider serve`; on PostgreSQL when `databaseUrl` is given.
 */
export async function measureStartups(databaseUrl: string | undefined): Promise<Array<Startup | StartupFailure>> {
  const results: Array<Startup | StartupFailure> = [];
  for (const what of ['npm start (demo)', 'age-provider serve'] as const) {
    const dataDir = await mkdtemp(join(tmpdir(), 'age-provider-bench-'));
    const runBoth = async (url: string | undefined) => {
      // SINGLE_INSTANCE: one process on its own database may keep its keys in DATA_DIR (the demo sets it itself).
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATA_DIR: dataDir,
        ...(url ? { DATABASE_URL: url, SINGLE_INSTANCE: 'true' } : {}),
      };
      for (const run of ['cold', 'warm'] as const) {
        results.push(await measure(what, run, env).catch((error: Error) => ({ what, run, error: error.message })));
      }
    };
    try {
      await (databaseUrl ? withFreshPostgres(databaseUrl, runBoth) : runBoth(undefined));
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }
  return results;
}
