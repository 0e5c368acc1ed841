import type { Knex } from 'knex';
import type { Database } from './database.js';

/**
 * The insert of one row that happens only where `condition` holds: `INSERT … SELECT … WHERE`, for a row written
 * inside a larger statement that decides, with its other parts, whether the row belongs (e.g. the verification a
 * repeated submit must not record twice). PostgreSQL types the selected parameters from the target columns.
 */
export function insertWhere(
  db: Database,
  table: string,
  row: Readonly<Record<string, Knex.Value>>,
  condition: string,
  returning?: string,
): Knex.Raw {
  const columns = Object.keys(row);
  const list = (marker: string): string => columns.map(() => marker).join(', ');
  return db.raw(
    `INSERT INTO ?? (${list('??')}) SELECT ${list('?')} WHERE ${condition}${returning ? ' RETURNING ??' : ''}`,
    [table, ...columns, ...Object.values(row), ...(returning ? [returning] : [])],
  );
}
