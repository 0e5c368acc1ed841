/**
 * Creates a new embedded database cluster (PGlite's initdb) in a short-lived process of its own: initdb grows
 * PGlite's WebAssembly memory to several hundred MB, and WebAssembly memory is never given back, so a server that ran
 * it kept that size for its whole life (docs/performance.md "Measurements behind code choices"). The
 * server then opens the ready cluster like any later start.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';

/** The ready cluster's marker: initdb writes it last. */
const isCreated = (pgdata: string) => existsSync(join(pgdata, 'PG_VERSION'));

/** Creates the cluster in `pgdata` unless it exists; the child inherits the caller's umask (owner-only files). */
export async function createClusterApart(pgdata: string, options: { postgresqlconf: string }): Promise<void> {
  if (isCreated(pgdata)) return;
  const fromSources = import.meta.url.endsWith('.ts');
  const script = fileURLToPath(import.meta.url);
  const child = spawn(
    process.execPath,
    [...(fromSources ? ['--import', 'tsx'] : []), script, pgdata, options.postgresqlconf],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0 || !isCreated(pgdata))
    throw new Error(`could not create the embedded database in ${pgdata}: ${errors.trim() || `exit ${code}`}`);
}

// Run as the child: create, close, exit.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [pgdata, postgresqlconf] = process.argv.slice(2);
  const pglite = await PGlite.create({ dataDir: pgdata!, postgresqlconf: postgresqlconf! });
  await pglite.close();
}
