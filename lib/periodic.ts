import type { Logger } from './log.js';
import { settlesWithin } from './time-limit.js';

export interface PeriodicTask {
  /** what the task does, for the warning when a run fails (e.g. "sweeping expired oidc_payloads") */
  name: string;
  everyMs: number;
  run(): Promise<void>;
}

/** How long close waits for a background run still in progress: a database that no longer answers must not hold the shutdown. */
export const CLOSE_WAIT_MS = 5_000;

/**
 * Runs a task every `everyMs`, never two runs at once. A failed run is logged and the next one tries again; the
 * timer never keeps the process alive, and close stops it and waits for a run in progress (at most CLOSE_WAIT_MS).
 */
export function schedulePeriodic(
  owner: { log: Logger; onClose(stop: () => Promise<void>): void },
  task: PeriodicTask,
): void {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= task
      .run()
      .catch((error: unknown) => owner.log.warn(`${task.name} failed`, { error: String(error) }))
      .finally(() => {
        running = undefined;
      });
  }, task.everyMs);
  timer.unref();
  owner.onClose(async () => {
    clearInterval(timer);
    if (running && (await settlesWithin(running, CLOSE_WAIT_MS)) === 'late')
      owner.log.warn(`${task.name} was still running at close: left unfinished`);
  });
}
