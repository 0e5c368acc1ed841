import type { Knex } from 'knex';
import type { Database } from './database.js';

/** PostgreSQL's codes for a transaction it aborted to let another through: running it again is the documented answer. */
const RETRIED_CODES = new Set(['40P01' /* deadlock_detected */, '40001' /* serialization_failure */]);

/** Runs of the transaction in all, the first included. */
const ATTEMPTS = 4;
/** Each wait before a new run is up to this many milliseconds times the runs so far, at random: racers spread apart. */
const JITTER_MS = 25;

/** PostgreSQL aborted this transaction as a deadlock or a serialization failure: it changed nothing. */
export const abortedForAnother = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && RETRIED_CODES.has(String((error as { code?: unknown }).code));

/**
 * Runs `work` again (up to ATTEMPTS runs, after a short random wait) when PostgreSQL aborted it as a deadlock or a
 * serialization failure; any other error, and the last abort, is thrown as it is. `work` must be a whole transaction:
 * an aborted one changed nothing, so running it again is safe.
 */
export async function retryingAborts<T>(
  work: () => Promise<T>,
  wait: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<T> {
  for (let run = 1; ; run += 1) {
    try {
      return await work();
    } catch (error) {
      if (run >= ATTEMPTS || !abortedForAnother(error)) throw error;
      await wait(Math.random() * JITTER_MS * run);
    }
  }
}

/** A transaction run again when PostgreSQL aborts it for another (retryingAborts): every change of a website, every attempt's record. */
export const retriedTransaction = <T>(db: Database, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> =>
  retryingAborts(() => db.transaction(work));
