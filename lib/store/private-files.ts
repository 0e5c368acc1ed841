import { chmod, lstat, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';

const FOLDER_MODE = 0o700;
const FILE_MODE = 0o600;

/**
 * Gives the owner alone access to everything under `folder` (created if missing): folders 0700, files 0600.
 * Returns the paths whose mode was changed, for the start-up warning. Symbolic links are left alone (chmod would
 * follow them out of the folder).
 */
export async function restrictToOwner(folder: string): Promise<string[]> {
  await mkdir(folder, { recursive: true, mode: FOLDER_MODE });
  const changed: string[] = [];
  const visit = async (path: string): Promise<void> => {
    const stats = await lstat(path);
    if (stats.isSymbolicLink()) return;
    const wanted = stats.isDirectory() ? FOLDER_MODE : FILE_MODE;
    if ((stats.mode & 0o7777) !== wanted) {
      await chmod(path, wanted);
      changed.push(path);
    }
    if (stats.isDirectory()) for (const entry of await readdir(path)) await visit(join(path, entry));
  };
  await visit(folder);
  return changed;
}

/**
 * Files the process creates from now on are readable by its owner only (umask 077): the embedded database writes
 * its data files and WAL with mode 0666 otherwise. Returns the function restoring the previous mask.
 */
export function ownerOnlyUmask(): () => void {
  const previous = process.umask(0o077);
  return () => {
    process.umask(previous);
  };
}
