/**
 * `npm run bench:compare`: age-provider against vanilla oidc-provider in the same run, with the same load generator
 * and the same flow shape (authorization → interaction → resume → token → Resources, keep-alive, concurrency 16).
 * age-provider runs as an operator runs it (`age-provider serve`, TRUST_PROXY, a distinct X-Forwarded-For per
 * visitor) on PostgreSQL when DATABASE_URL is set, and on the embedded database. Loopback only; bounded by counts.
 * REDIS_URL is passed on to the server (rate limits shared through Redis). BENCH_RUNS=3 reports the median of three runs; BENCH_PROFILE=1 runs the server under `node --cpu-prof` and prints
 * where its busy time went; BENCH_STEPS=1 also measures a flow through the pages step by step; BENCH_EMBEDDED=0
 * leaves the embedded database out. Method and figures: docs/performance.md.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import { packageRoot } from '../lib/paths.js';
import type { SandboxAction } from '../test/helpers/visitor.js';
import { summariseProfile } from './profile-summary.js';
import {
  printSqlPerFlow,
  sqlPerFlow,
  startBenchServer,
  stopBenchServer,
  type FlowKind,
  type SqlCount,
} from './sql-count.js';
import {
  exchange,
  obtainCode,
  peakRssMb,
  phase,
  readResources,
  VANILLA_CLIENT,
  walkPages,
  wholeFlow,
  type PhaseResult,
  type Target,
} from './compare-flows.js';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const FLOWS = Number(process.env.BENCH_FLOWS ?? 300);
const RUNS = Number(process.env.BENCH_RUNS ?? 1);
/** whole flows (and a third as many through the pages) run before the measured phases */
const WARM_UP = Number(process.env.BENCH_WARMUP ?? 600);
/**
 * Token exchanges measured (default 600), in batches of codes minted just before each: vanilla's memory adapter is an
 * LRU of 1000 entries, and each authorization stores four (interaction, session, grant, code), so a batch of more
 * than 150 would evict its first codes before their exchange. One batch of 150 was too short to measure: a tenth of
 * a second of the server's CPU, counted in 10 ms ticks.
 */
const TOKENS = Number(process.env.BENCH_TOKENS ?? 600);
const TOKEN_BATCH = 150;
const PROFILE = process.env.BENCH_PROFILE === '1';
/** BENCH_STEPS=1: also where a flow through age-provider's pages spends the server's CPU, step by step */
const STEPS = process.env.BENCH_STEPS === '1';
const PHASES = ['flows', 'token', 'resources', 'pages'] as const;
type PhaseName = (typeof PHASES)[number];

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

/** Waits for a line of the child's output matching `pattern`. */
const lineOf = (child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> =>
  new Promise((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = pattern.exec(seen);
      if (match) resolve(match);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${seen}`)));
  });

const stop = async (child: ChildProcess): Promise<void> => {
  if (child.exitCode !== null) return;
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  await exited;
};

async function startVanilla(): Promise<{ child: ChildProcess; target: Target }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(packageRoot, 'bench', 'vanilla-server.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [, url] = await lineOf(child, /ready (\S+)\n/);
  return {
    child,
    target: {
      name: 'vanilla',
      url: url!,
      pid: child.pid!,
      paths: { authorization: '/auth', token: '/token', resources: '/resources' },
      client: VANILLA_CLIENT,
      shortcut: {},
    },
  };
}

const cli = (args: string[], env: NodeJS.ProcessEnv): string => {
  const run = spawnSync(process.execPath, [join(packageRoot, 'bin', 'age-provider.js'), ...args], {
    env,
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`age-provider ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
};

/** `age-provider serve` on a fresh database, with a webmaster, a website and a TEST OAuth2 client made as an operator would. */
async function startAgeProvider(
  databaseUrl: string | undefined,
): Promise<{ child: ChildProcess; target: Target; cleanUp(): Promise<void> }> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'age-provider-bench-'));
  let dropDatabase = async () => {};
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    PORT: String(port),
    ISSUER: `http://127.0.0.1:${port}`,
    TRUST_PROXY: 'true',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
  };
  // REDIS_URL=... npm run bench:compare: the limits counted in Redis, under a prefix of this run's own.
  if (process.env.REDIS_URL)
    Object.assign(env, { REDIS_URL: process.env.REDIS_URL, REDIS_KEY_PREFIX: `bench-${process.pid}-${Date.now()}:` });
  if (databaseUrl) {
    const name = `ap_bench_${process.pid}_${Date.now()}`;
    const admin = knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 1 } });
    await admin.raw(`CREATE DATABASE ${name}`);
    const url = new URL(databaseUrl);
    url.pathname = `/${name}`;
    Object.assign(env, { DATABASE_URL: url.href, SINGLE_INSTANCE: 'true' });
    dropDatabase = async () => {
      await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.destroy();
    };
  }
  cli(['migrate'], env);
  cli(['webmaster', 'create', '--email', 'bench@example.com', '--json'], env);
  const { token } = JSON.parse(cli(['webmaster', 'token', '--email', 'bench@example.com', '--json'], env)) as {
    token: string;
  };
  const profileDir = join(dataDir, 'profile');
  const profiling = PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(process.execPath, [...profiling, join(packageRoot, 'bin', 'age-provider.js'), 'serve'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt += 1) {
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (attempt > 300 || child.exitCode !== null) throw new Error('age-provider serve did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const api = async <T>(method: string, path: string, json: unknown): Promise<T> => {
    const response = await fetch(`${url}/external${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(json),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  const website = await api<{ id: number }>('POST', '/website', { name: 'Bench shop', domain: 'bench.example.com' });
  const oauth2 = await api<{ clientId: string; clientSecret: string }>('POST', `/website/${website.id}/oauth2/test`, {
    redirectUris: [VANILLA_CLIENT.redirectUri],
  });
  return {
    child,
    target: {
      name: databaseUrl ? 'age-provider (PostgreSQL)' : 'age-provider (embedded)',
      url,
      pid: child.pid!,
      paths: { authorization: '/v1/oauth2/checker', token: '/v1/oauth2/token', resources: '/v1/oauth2/resources' },
      client: { clientId: oauth2.clientId, clientSecret: oauth2.clientSecret, redirectUri: VANILLA_CLIENT.redirectUri },
      shortcut: { test_outcome: 'pass' },
    },
    async cleanUp() {
      await stop(child);
      if (PROFILE) for (const file of readdirSync(profileDir)) console.log(summariseProfile(join(profileDir, file)));
      await dropDatabase();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The server's CPU of flows through the pages stopped after each of the visitor's actions (BENCH_STEPS=1). */
interface PageSteps {
  /** the visitor's actions through the pages, in order */
  actions: SandboxAction[];
  /** CPU ms per flow stopped after 0, 1, … actions (0: the authorization and the first page) */
  cpuMsAfter: number[];
}

type Results = Record<PhaseName, PhaseResult> & { peakRssMb: number; steps?: PageSteps };

/**
 * Flows through the pages stopped after 0, 1, … of the visitor's actions, FLOWS of each: the difference between two
 * counts is what one action costs the server (the action's request and the page or redirect it leads to).
 */
async function pageSteps(target: Target): Promise<PageSteps> {
  const actions = await walkPages(target);
  const cpuMsAfter: number[] = [];
  for (let steps = 0; steps <= actions.length; steps += 1) {
    cpuMsAfter.push(
      (await phase(target, FLOWS, CONCURRENCY, () => walkPages(target, steps).then(() => undefined))).cpuMsPerOperation,
    );
  }
  return { actions, cpuMsAfter };
}

/** The four phases against one target; vanilla's "pages" is its five-request flow (it has no pages). */
async function measure(target: Target, isAgeProvider: boolean): Promise<Results> {
  // V8 keeps optimising well past the first requests: vanilla's flows/s doubled over its first 1200 flows (measured),
  // so each server is warmed with the flows of both kinds before anything is measured.
  await phase(target, WARM_UP, CONCURRENCY, () => wholeFlow(target));
  await phase(target, Math.ceil(WARM_UP / 3), CONCURRENCY, () => wholeFlow(target, isAgeProvider));
  const flows = await phase(target, FLOWS, CONCURRENCY, () => wholeFlow(target));
  const minted: Array<{ code: string; verifier: string }> = [];
  const token = await phase(
    target,
    TOKENS,
    CONCURRENCY,
    (index) => exchange(target, minted[index]!).then(() => undefined),
    {
      size: TOKEN_BATCH,
      prepare: async (first, end) => {
        minted.splice(
          first,
          end - first,
          ...(await Promise.all(Array.from({ length: end - first }, () => obtainCode(target)))),
        );
      },
    },
  );
  const accessToken = await exchange(target, await obtainCode(target));
  const resources = await phase(target, FLOWS * 10, CONCURRENCY, () => readResources(target, accessToken));
  const pages = await phase(target, FLOWS, CONCURRENCY, () => wholeFlow(target, isAgeProvider));
  const steps = STEPS && isAgeProvider ? await pageSteps(target) : undefined;
  return { flows, token, resources, pages, peakRssMb: peakRssMb(target.pid), ...(steps ? { steps } : {}) };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function medianOf(runs: Results[]): Results {
  const pick = (name: PhaseName): PhaseResult => {
    const list = runs.map((run) => run[name]);
    return {
      operations: median(list.map((item) => item.operations)),
      failures: Math.max(...list.map((item) => item.failures)),
      perSecond: median(list.map((item) => item.perSecond)),
      p50Ms: median(list.map((item) => item.p50Ms)),
      p99Ms: median(list.map((item) => item.p99Ms)),
      cpuMsPerOperation: median(list.map((item) => item.cpuMsPerOperation)),
      loadCpuMsPerOperation: median(list.map((item) => item.loadCpuMsPerOperation)),
    };
  };
  const measuredSteps = runs.flatMap((run) => (run.steps ? [run.steps] : []));
  const steps = measuredSteps[0] && {
    actions: measuredSteps[0].actions,
    cpuMsAfter: measuredSteps[0].cpuMsAfter.map((_, index) =>
      median(measuredSteps.map((run) => run.cpuMsAfter[index]!)),
    ),
  };
  return {
    flows: pick('flows'),
    token: pick('token'),
    resources: pick('resources'),
    pages: pick('pages'),
    peakRssMb: median(runs.map((run) => run.peakRssMb)),
    ...(steps ? { steps } : {}),
  };
}

function print(vanilla: Results, ours: Record<string, Results>): void {
  const row = (cells: Array<string | number>) =>
    console.log(
      cells.map((cell, index) => String(cell)[index === 0 ? 'padEnd' : 'padStart'](index === 0 ? 30 : 26)).join(''),
    );
  console.log('');
  row(['', 'vanilla', ...Object.keys(ours)]);
  const labels: Record<PhaseName, string> = {
    flows: 'whole flows (shortcut)',
    token: 'token exchanges',
    resources: 'Resources',
    pages: 'flows through the pages',
  };
  for (const name of PHASES) {
    row([
      `${labels[name]} /s`,
      vanilla[name].perSecond,
      ...Object.values(ours).map(
        (result) => `${result[name].perSecond} (${(result[name].perSecond / vanilla[name].perSecond).toFixed(2)}x)`,
      ),
    ]);
    row([
      '  p50 / p99 ms',
      `${vanilla[name].p50Ms} / ${vanilla[name].p99Ms}`,
      ...Object.values(ours).map((result) => `${result[name].p50Ms} / ${result[name].p99Ms}`),
    ]);
    row([
      '  server CPU ms per op',
      vanilla[name].cpuMsPerOperation,
      ...Object.values(ours).map(
        (result) =>
          `${result[name].cpuMsPerOperation} (${(result[name].cpuMsPerOperation / vanilla[name].cpuMsPerOperation).toFixed(1)}x)`,
      ),
    ]);
    row([
      '  load generator CPU ms per op',
      vanilla[name].loadCpuMsPerOperation,
      ...Object.values(ours).map((result) => result[name].loadCpuMsPerOperation),
    ]);
    row(['  failures', vanilla[name].failures, ...Object.values(ours).map((result) => result[name].failures)]);
  }
  row(['peak RSS MB', vanilla.peakRssMb, ...Object.values(ours).map((result) => result.peakRssMb)]);
  for (const [name, result] of Object.entries(ours)) {
    if (!result.steps) continue;
    const { actions, cpuMsAfter } = result.steps;
    // The last part from the token and Resources phases: a difference with the pages phase would carry the JIT's
    // warming between that phase and these (the step phases run after it).
    const parts: Array<[string, number]> = [
      ['authorization, then the first page', cpuMsAfter[0]!],
      ...actions.map((action, index): [string, number] => [action, cpuMsAfter[index + 1]! - cpuMsAfter[index]!]),
      ['token exchange, then Resources', result.token.cpuMsPerOperation + result.resources.cpuMsPerOperation],
    ];
    const total = parts.reduce((sum, [, ms]) => sum + ms, 0);
    console.log(
      `\n${name}: the server's CPU per flow through the pages, step by step (ms; ${total.toFixed(2)} in all, ${result.pages.cpuMsPerOperation} in the pages phase; vanilla's whole flow ${vanilla.pages.cpuMsPerOperation})`,
    );
    for (const [label, ms] of parts)
      console.log(
        `  ${label.padEnd(40)}${ms.toFixed(2).padStart(8)}${`${Math.round((100 * ms) / total)}%`.padStart(6)}`,
      );
  }
}

console.log('building (tsc): `age-provider serve` runs the compiled CLI...');
if (
  spawnSync(
    process.execPath,
    [join(packageRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(packageRoot, 'tsconfig.json')],
    { stdio: 'inherit' },
  ).status !== 0
)
  process.exit(1);

/** BENCH_EMBEDDED=0 leaves the embedded database out (PostgreSQL alone, for a quicker comparison) */
const databases: Array<string | undefined> = [
  ...(process.env.DATABASE_URL ? [process.env.DATABASE_URL] : []),
  ...(process.env.BENCH_EMBEDDED === '0' ? [] : [undefined]),
];
const vanillaRuns: Results[] = [];
const ourRuns: Record<string, Results[]> = {};
for (let run = 1; run <= RUNS; run += 1) {
  console.log(`run ${run}/${RUNS}: vanilla oidc-provider...`);
  const vanilla = await startVanilla();
  try {
    vanillaRuns.push(await measure(vanilla.target, false));
  } finally {
    await stop(vanilla.child);
  }
  for (const databaseUrl of databases) {
    const server = await startAgeProvider(databaseUrl);
    console.log(`run ${run}/${RUNS}: ${server.target.name}...`);
    try {
      (ourRuns[server.target.name] ??= []).push(await measure(server.target, true));
    } finally {
      await server.cleanUp();
    }
  }
}
print(medianOf(vanillaRuns), Object.fromEntries(Object.entries(ourRuns).map(([name, runs]) => [name, medianOf(runs)])));

// The statements of one flow of each kind, counted per endpoint in an instrumented server on the same databases.
const sqlCounts: Record<string, Record<FlowKind, SqlCount>> = {};
for (const databaseUrl of databases) {
  const { child, target } = await startBenchServer(databaseUrl);
  try {
    sqlCounts[databaseUrl ? 'PostgreSQL' : 'embedded'] = await sqlPerFlow(child, target);
  } finally {
    await stopBenchServer(child);
  }
}
const sqlRow = (label: string, values: Array<string | number>) =>
  console.log(`${label.padEnd(44)}${values.map((value) => String(value).padStart(16)).join('')}`);
console.log('');
sqlRow('', Object.keys(sqlCounts));
printSqlPerFlow(sqlCounts, sqlRow);
console.log(
  `\n${RUNS === 1 ? 'one run' : `median of ${RUNS} runs`}; ${FLOWS} flows, ${TOKENS} token exchanges, ${FLOWS * 10} Resources reads, ${FLOWS} page flows per server, concurrency ${CONCURRENCY}`,
);
