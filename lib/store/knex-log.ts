import type { Knex } from 'knex';
import type { Logger } from '../log.js';

/**
 * One line of text for a knex message: an error's own message, else the first line of its text (knex appends
 * stacks, e.g. "Acquire connection error: Error: ...\n    at ...", that are noise in an outage).
 */
function describe(message: unknown): string {
  if (message instanceof Error) return message.message;
  const text = typeof message === 'string' ? message : (JSON.stringify(message) ?? String(message));
  return text.split('\n', 1)[0]!;
}

/**
 * knex prints warnings (e.g. connection errors during a database outage) with console.log and multi-line stacks:
 * they go to the JSON logger instead, one line each.
 */
export function knexLog(log: Logger): Knex.Logger {
  return {
    warn: (message) => log.warn(`database: ${describe(message)}`),
    error: (message) => log.error(`database: ${describe(message)}`),
    debug: (message) => log.debug(`database: ${describe(message)}`),
    // knex hands the finished sentence ("x is deprecated, please use y") to a custom deprecate function.
    deprecate: ((message: string) => log.warn(`database: ${message}`)) as unknown as Knex.Logger['deprecate'],
  };
}
