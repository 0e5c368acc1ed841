import { chmod, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync, gzip } from 'node:zlib';
import type { PGlite } from '@electric-sql/pglite';

/**
 * A consistent copy of the embedded database while its one owner runs. PGlite is PostgreSQL in one process without
 * background writers: its files change only while a statement runs, and statements run one at a time under PGlite's
 * own query lock. So a checkpoint followed by a copy of the data folder taken under that lock (PGlite's dumpDataDir)
 * is a crash-consistent image: a transaction open at that moment is rolled back when the copy is opened, like after a
 * power cut, and nothing committed is missing. PGlite reads its files synchronously, so the process answers nothing
 * else meanwhile (about 2 s for a 40 MB folder): requests wait, none is refused.
 *
 * Another process cannot open the files (the owner's lock, embedded-lock.ts), so the owner answers on a Unix socket in
 * DATA_DIR, as private as the folder: whoever connects gets the gzipped copy and the connection ends.
 */
// Shorter than the lock's socket name, so it fits wherever DATA_DIR's lock fits (embedded-lock.ts).
const SNAPSHOT_SOCKET = 'backup.sock';

/** The data folder as a gzipped tar, taken as described above. */
export async function snapshotOf(pglite: PGlite): Promise<Buffer> {
  // The checkpoint shortens the recovery on opening the copy; the copy is consistent without it.
  await pglite.exec('CHECKPOINT');
  const tar = await pglite.dumpDataDir('none');
  // Compressed outside PGlite's lock and off the event loop: statements wait for the copy only.
  return promisify(gzip)(Buffer.from(await tar.arrayBuffer()));
}

/** The tar of a snapshot, as PGlite's loadDataDir takes it. */
export const snapshotTar = (snapshot: Buffer): Blob => new Blob([gunzipSync(snapshot)], { type: 'application/x-tar' });

/** Answers snapshot requests on DATA_DIR's socket for as long as `pglite` is open; returns the stop. */
export async function serveSnapshots(folder: string, pglite: PGlite): Promise<() => Promise<void>> {
  const path = join(folder, SNAPSHOT_SOCKET);
  // A socket left by an owner that was killed: this process holds the lock now, so it is stale.
  await rm(path, { force: true });
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    snapshotOf(pglite).then(
      (snapshot) => socket.end(snapshot),
      () => socket.destroy(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  server.unref();
  await chmod(path, 0o600);
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(path, { force: true });
  };
}

/** A snapshot from the process that owns the embedded database in `folder`; rejects when none answers. */
export function requestSnapshot(folder: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(join(folder, SNAPSHOT_SOCKET));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    // An owner that failed to copy closes without a byte.
    socket.on('end', () =>
      chunks.length > 0 ? resolve(Buffer.concat(chunks)) : reject(new Error('the owner sent no copy')),
    );
  });
}
