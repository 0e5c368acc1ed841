import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root, found from this file whether it runs from lib/ (tsx) or dist/lib/ (compiled). */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above lib/paths');
    dir = parent;
  }
  return dir;
}

export const packageRoot = findPackageRoot();
export const viewsDir = join(packageRoot, 'views');

/** The service's version, as package.json says (`--version`, the evidence pack, the build information metric). */
export const packageVersion = (): string =>
  (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
