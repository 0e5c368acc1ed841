import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export class DatabaseInUseError extends Error {
  override name = 'DatabaseInUseError';
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The embedded database belongs to one process: a second one opening the same files would corrupt them.
 * Takes a pid lock file in the data folder; a lock left by a dead process is taken over.
 */
export async function lockEmbedded(dataDir: string): Promise<() => Promise<void>> {
  const file = join(dataDir, 'owner.pid');
  for (;;) {
    try {
      await writeFile(file, String(process.pid), { flag: 'wx' });
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number(await readFile(file, 'utf8').catch(() => ''));
    // This very process counts too: two PGlite instances on one folder corrupt it just the same.
    if (Number.isInteger(owner) && owner > 0 && alive(owner)) {
      throw new DatabaseInUseError(
        `the embedded database in ${dataDir} is in use by process ${owner} (a running age-provider). ` +
          'Stop that process first, or run the server and this command against PostgreSQL with DATABASE_URL.',
      );
    }
    await rm(file, { force: true });
  }
}
