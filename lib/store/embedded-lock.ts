import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export class DatabaseInUseError extends Error {
  override name = 'DatabaseInUseError';
}

/**
 * Who holds the lock: a PID alone is not enough, because after a SIGKILL the same PID comes back (in a container the
 * server is always PID 1). The process start time (clock ticks since boot, /proc/<pid>/stat) and the boot id tell a
 * live owner from a new process that merely reuses its number.
 */
export interface OwnerRecord {
  pid: number;
  /** /proc/<pid>/stat field 22; absent where /proc is not available */
  startTime?: string;
  /** /proc/sys/kernel/random/boot_id; absent where /proc is not available */
  bootId?: string;
}

async function readProc(path: string): Promise<string | undefined> {
  return readFile(path, 'utf8').then((text) => text.trim(), () => undefined);
}

/** Field 22 of /proc/<pid>/stat; the command name (field 2) may hold spaces and parentheses, so count after the last ")". */
async function startTimeOf(pid: number): Promise<string | undefined> {
  const stat = await readProc(`/proc/${pid}/stat`);
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

export async function currentOwner(pid: number = process.pid): Promise<OwnerRecord> {
  const [startTime, bootId] = await Promise.all([startTimeOf(pid), readProc('/proc/sys/kernel/random/boot_id')]);
  return { pid, ...(startTime ? { startTime } : {}), ...(bootId ? { bootId } : {}) };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A record from an older version held the PID alone, as plain text. */
function parseRecord(text: string): OwnerRecord | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === 'number') return { pid: value };
    if (typeof value !== 'object' || value === null) return undefined;
    const { pid, startTime, bootId } = value as Record<string, unknown>;
    if (typeof pid !== 'number') return undefined;
    return { pid, ...(typeof startTime === 'string' ? { startTime } : {}), ...(typeof bootId === 'string' ? { bootId } : {}) };
  } catch {
    return undefined;
  }
}

/** The recorded owner still runs: its PID is alive and, where known, it is the same boot and the same process start. */
async function stillOwns(record: OwnerRecord): Promise<boolean> {
  if (!Number.isInteger(record.pid) || record.pid <= 0 || !alive(record.pid)) return false;
  const now = await currentOwner(record.pid);
  if (record.bootId && now.bootId && record.bootId !== now.bootId) return false;
  if (record.startTime && now.startTime && record.startTime !== now.startTime) return false;
  return true;
}

/**
 * The embedded database belongs to one process: a second one opening the same files would corrupt them.
 * Writes an owner record (mode 0600) in the data folder; a record left by a process that no longer runs is taken over.
 */
export async function lockEmbedded(dataDir: string): Promise<() => Promise<void>> {
  const file = join(dataDir, 'owner.pid');
  const me = JSON.stringify(await currentOwner());
  for (;;) {
    try {
      await writeFile(file, me, { flag: 'wx', mode: 0o600 });
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = parseRecord(await readFile(file, 'utf8').catch(() => ''));
    // This very process counts too: two PGlite instances on one folder corrupt it just the same.
    if (owner && (await stillOwns(owner))) {
      throw new DatabaseInUseError(
        `the embedded database in ${dataDir} is in use by process ${owner.pid} (a running age-provider). ` +
          'Stop that process first, or run the server and this command against PostgreSQL with DATABASE_URL.',
      );
    }
    await rm(file, { force: true });
  }
}
