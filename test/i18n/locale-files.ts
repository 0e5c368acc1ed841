import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { LANGUAGES, type Language } from '../../lib/i18n/languages.js';
import { packageRoot, viewsDir } from '../../lib/paths.js';

// What the i18n tests inspect, discovered on disk when they run (other areas keep adding files).

export const localesDir = join(viewsDir, 'locales');

/** Area names (file names without .json) found in any language's folder. */
export function areaNames(): string[] {
  const names = new Set<string>();
  for (const language of LANGUAGES) {
    for (const file of readdirSync(join(localesDir, language)))
      if (file.endsWith('.json')) names.add(file.slice(0, -5));
  }
  return [...names].sort();
}

/** One language's area file parsed as is (undefined when the file is missing); not-JSON throws with the path. */
export function readArea(language: Language, area: string): unknown {
  const path = join(localesDir, language, `${area}.json`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`${relative(viewsDir, path)} is not valid JSON: ${(error as Error).message}`);
  }
}

/** Every template under views/, as paths relative to it (the names render() takes). */
export function templateNames(folder = viewsDir): string[] {
  return readdirSync(folder)
    .flatMap((name) => {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) return name === 'locales' || name === 'static' ? [] : templateNames(path);
      return name.endsWith('.njk') ? [relative(viewsDir, path).split('\\').join('/')] : [];
    })
    .sort();
}

export const templateSource = (name: string): string => readFileSync(join(viewsDir, name), 'utf8');

const EXTENDS = /\{%-?\s*extends\s+["']([^"']+)["']/;

/** Templates that are whole pages: they extend layout.njk, directly or through another page. */
export function fullPages(): string[] {
  const parents = new Map(templateNames().map((name) => [name, EXTENDS.exec(templateSource(name))?.[1]]));
  const isPage = (name: string, seen = new Set<string>()): boolean => {
    const parent = parents.get(name);
    if (parent === undefined || seen.has(name)) return false;
    return parent === 'layout.njk' || isPage(parent, seen.add(name));
  };
  return [...parents.keys()].filter((name) => isPage(name));
}

/** Every TypeScript file under lib/ (code that translates: emails, error messages handed to templates). */
export function libraryFiles(folder = join(packageRoot, 'lib')): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return libraryFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}
