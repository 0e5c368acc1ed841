import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../paths.js';
import { LIMITS, type LimitName, type LimitRow } from './limits.js';

const window = (seconds: number): string => (seconds % 3600 === 0 ? `${seconds / 3600} h` : `${seconds / 60} min`);

/**
 * docs/configuration.md's "Rate limits" table, rendered from lib/http/limits.ts (`npm run docs:limits` writes it;
 * test/http/limits.test.ts fails when the page differs, so the documentation cannot drift from the table).
 */
export function limitsTable(): string {
  const rows = (Object.entries(LIMITS) as Array<[LimitName, LimitRow]>).map(
    ([name, row]) =>
      `| \`${name}\` | ${row.points} per ${window(row.windowSeconds)} | ${row.setting ? `\`${row.setting}\`` : ''} | ${row.scope === 'instance' ? 'each instance' : 'shared'} | ${row.reason} |`,
  );
  return ['| limit | allows | variable (per minute) | counted | why |', '|---|---|---|---|---|', ...rows].join('\n');
}

export const LIMITS_TABLE_START = '<!-- rate limits: generated from lib/http/limits.ts by npm run docs:limits -->';
export const LIMITS_TABLE_END = '<!-- end of rate limits -->';

/** `page` with its generated block replaced by the current table. */
export function withLimitsTable(page: string): string {
  const start = page.indexOf(LIMITS_TABLE_START);
  const end = page.indexOf(LIMITS_TABLE_END);
  if (start < 0 || end < start) throw new Error('docs/configuration.md lacks the rate-limit markers');
  return `${page.slice(0, start + LIMITS_TABLE_START.length)}\n${limitsTable()}\n${page.slice(end)}`;
}

// `npm run docs:limits`: rewrites the block in docs/configuration.md.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = join(packageRoot, 'docs', 'configuration.md');
  writeFileSync(file, withLimitsTable(readFileSync(file, 'utf8')));
}
