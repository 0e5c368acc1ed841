import type { Knex } from 'knex';
import type { Logger } from '../log.js';

/** One line of text for a knex message: an error's own message (its stack is noise in an outage), else its text. */
function describe(message: unknown): string {
  if (message instanceof Error) return message.message;
  return typeof message === 'string' ? message : JSON.stringify(message) ?? String(message);
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
