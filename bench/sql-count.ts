/**
 * The instrumented server (bench/server.ts: the real app in a process of its own, counting SQL statements per
 * endpoint) as the benchmarks drive it: start, count the statements of one flow of each kind, stop. Used by
 * `npm run bench` (which also loads it) and `npm run bench:compare` (which only counts with it).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../lib/paths.js';
import { runFlow } from './flows.js';
import type { BenchTarget, FromServer, ToServer } from './protocol.js';

export type FlowKind = 'test_outcome' | 'pages';
export interface SqlCount {
  total: number;
  byEndpoint: Record<string, number>;
}

export function startBenchServer(
  databaseUrl: string | undefined,
): Promise<{ child: ChildProcess; target: BenchTarget }> {
  const { DATABASE_URL: _ignored, ...env } = process.env;
  const child = fork(join(packageRoot, 'bench', 'server.ts'), {
    execArgv: ['--import', 'tsx'],
    env: { ...env, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    child.once('message', (message: FromServer) => {
      if (message.type === 'ready') resolve({ child, target: message.target });
    });
  });
}

const ask = (child: ChildProcess, message: ToServer): void => void child.send(message);

export async function stopBenchServer(child: ChildProcess): Promise<void> {
  child.removeAllListeners('exit');
  ask(child, { type: 'stop' });
  await new Promise((resolve) => child.once('exit', resolve));
}

async function sqlOf(child: ChildProcess, flow: () => Promise<unknown>): Promise<SqlCount> {
  ask(child, { type: 'count-sql' });
  await flow();
  await new Promise((resolve) => setTimeout(resolve, 200)); // let work finishing after the last response be counted
  const reply = new Promise<Record<string, number>>((resolve) => {
    const listen = (message: FromServer) => {
      if (message.type !== 'sql') return;
      child.off('message', listen);
      resolve(message.counts);
    };
    child.on('message', listen);
  });
  ask(child, { type: 'report-sql' });
  const byEndpoint = await reply;
  return { total: Object.values(byEndpoint).reduce((sum, count) => sum + count, 0), byEndpoint };
}

/** The statements of one flow of each kind, after five warm-up flows (the instance's client cache is warm, as in service). */
export async function sqlPerFlow(child: ChildProcess, target: BenchTarget): Promise<Record<FlowKind, SqlCount>> {
  for (let warmUp = 0; warmUp < 5; warmUp += 1) await runFlow(target, 'test_outcome');
  return {
    test_outcome: await sqlOf(child, () => runFlow(target, 'test_outcome')),
    pages: await sqlOf(child, () => runFlow(target, 'pages')),
  };
}

/** Prints the statements per flow and per endpoint, one column per database. */
export function printSqlPerFlow(
  counts: Record<string, Record<FlowKind, SqlCount>>,
  row: (label: string, values: Array<string | number>) => void,
): void {
  const databases = Object.keys(counts);
  for (const kind of ['test_outcome', 'pages'] as const) {
    row(
      `SQL statements per flow (${kind})`,
      databases.map((db) => counts[db]![kind].total),
    );
    const endpoints = [...new Set(databases.flatMap((db) => Object.keys(counts[db]![kind].byEndpoint)))].sort();
    for (const endpoint of endpoints)
      row(
        `  ${endpoint}`,
        databases.map((db) => counts[db]![kind].byEndpoint[endpoint] ?? 0),
      );
  }
}
