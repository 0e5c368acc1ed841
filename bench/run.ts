/**
 * `npm run bench`: loopback benchmarks of age-provider, on the embedded database and (when DATABASE_URL is set) on
 * PostgreSQL. Bounded: BENCH_FLOWS flows (default 200) at BENCH_CONCURRENCY (8), BENCH_SECONDS (5) per autocannon run.
 * Writes bench/results/<date>.json and prints a table. Method and figures: docs/performance.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../lib/paths.js';
import { hammer, type HttpLoad } from './http-load.js';
import { loadFlows, obtainToken, round, type FlowLoad } from './flows.js';
import {
  printSqlPerFlow,
  sqlPerFlow,
  startBenchServer,
  stopBenchServer,
  type FlowKind,
  type SqlCount,
} from './sql-count.js';
import { measureStartups, type Startup, type StartupFailure } from './startup.js';

const FLOWS = Number(process.env.BENCH_FLOWS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

interface DatabaseResults {
  sqlPerFlow: Record<FlowKind, SqlCount>;
  flows: Record<'test_outcome' | 'pages', FlowLoad>;
  http: Record<'resources' | 'requirement', HttpLoad>;
}

async function benchDatabase(databaseUrl: string | undefined): Promise<DatabaseResults> {
  const { child, target } = await startBenchServer(databaseUrl);
  try {
    const sqlCounts = await sqlPerFlow(child, target);
    const flows = {
      test_outcome: await loadFlows(target, 'test_outcome', FLOWS, CONCURRENCY),
      pages: await loadFlows(target, 'pages', Math.ceil(FLOWS / 4), CONCURRENCY),
    };
    const token = await obtainToken(target, 'test_outcome');
    const http = {
      resources: await hammer(`${target.url}/v1/oauth2/resources`, {
        headers: { authorization: `Bearer ${token}` },
        seconds: SECONDS,
      }),
      requirement: await hammer(`${target.url}/v1/requirement?key=${encodeURIComponent(target.publicKey)}`, {
        distinctClients: true,
        seconds: SECONDS,
      }),
    };
    await new Promise((resolve) => setTimeout(resolve, 1000)); // requests autocannon left in flight finish before the stop
    return { sqlPerFlow: sqlCounts, flows, http };
  } finally {
    await stopBenchServer(child);
  }
}

function printTables(
  results: Record<string, DatabaseResults>,
  startups: Record<string, Array<Startup | StartupFailure>>,
): void {
  const databases = Object.keys(results);
  const row = (label: string, values: Array<string | number>) =>
    console.log(`${label.padEnd(44)}${values.map((value) => String(value).padStart(16)).join('')}`);
  console.log('');
  row('', databases);
  for (const kind of ['test_outcome', 'pages'] as const) {
    row(
      `flows/s (${kind}, c=${CONCURRENCY})`,
      databases.map((db) => results[db]!.flows[kind].flowsPerSecond),
    );
    row(
      `  p50 / p95 ms`,
      databases.map((db) => `${results[db]!.flows[kind].p50Ms} / ${results[db]!.flows[kind].p95Ms}`),
    );
    row(
      `  failures`,
      databases.map((db) => `${results[db]!.flows[kind].failures}/${results[db]!.flows[kind].flows}`),
    );
  }
  for (const endpoint of ['resources', 'requirement'] as const) {
    row(
      `GET ${endpoint} req/s (c=10)`,
      databases.map((db) => results[db]!.http[endpoint].requestsPerSecond),
    );
    row(
      `  p50 / p99 ms, non-2xx`,
      databases.map(
        (db) =>
          `${results[db]!.http[endpoint].p50Ms} / ${results[db]!.http[endpoint].p99Ms}, ${results[db]!.http[endpoint].non2xx}`,
      ),
    );
  }
  printSqlPerFlow(Object.fromEntries(databases.map((db) => [db, results[db]!.sqlPerFlow])), row);
  for (const [db, list] of Object.entries(startups)) {
    for (const startup of list) {
      row(
        `${startup.what}, ${startup.run} (${db})`,
        'error' in startup
          ? [`failed: ${startup.error}`]
          : [`${startup.readyMs} ms`, `${startup.rssMb} MB RSS`, `stop ${startup.stopMs} ms`],
      );
    }
  }
}

console.log('building (tsc) for the start-up measurements...');
const build = spawnSync(
  process.execPath,
  [join(packageRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(packageRoot, 'tsconfig.json')],
  { stdio: 'inherit' },
);
if (build.status !== 0) console.warn('tsc reported errors; the emitted files are used anyway');

const databaseUrl = process.env.DATABASE_URL;
const results: Record<string, DatabaseResults> = {};
const startups: Record<string, Array<Startup | StartupFailure>> = {};
for (const [name, url] of [['embedded', undefined], ...(databaseUrl ? [['postgresql', databaseUrl]] : [])] as Array<
  [string, string | undefined]
>) {
  console.log(`benchmarking on ${name}...`);
  results[name] = await benchDatabase(url);
  console.log(`measuring start-up on ${name}...`);
  startups[name] = await measureStartups(url);
}
printTables(results, startups);

const report = {
  date: new Date().toISOString(),
  machine: {
    cpus: cpus().length,
    cpu: cpus()[0]?.model,
    memoryGb: round(totalmem() / 2 ** 30),
    node: process.version,
    platform: process.platform,
  },
  settings: { flows: FLOWS, concurrency: CONCURRENCY, autocannonSeconds: SECONDS, autocannonConnections: 10 },
  results,
  startups,
};
const file = join('bench', 'results', `${report.date.replace(/[:.]/g, '-')}.json`);
mkdirSync(join(packageRoot, 'bench', 'results'), { recursive: true });
writeFileSync(join(packageRoot, file), `${JSON.stringify(report, null, 2)}\n`);
console.log(`\nwritten to ${file}`);
