import { CLOSE_WAIT_MS, schedulePeriodic } from '../periodic.js';
import type { StatisticsServices } from './services.js';
import { settlesWithin } from '../time-limit.js';
import { rollUp, type Counted } from './store.js';

/** Adds every verification not yet counted and the tallied events to the daily aggregates. */
export async function rollUpStatistics(runtime: StatisticsServices, counted: Counted): Promise<void> {
  const tallied = runtime.tally.take(runtime.clock.now());
  try {
    let counting = await rollUp(runtime.db, tallied, counted);
    while (counting > 0) counting = await rollUp(runtime.db, [], counted);
  } catch (error) {
    runtime.tally.restore(tallied);
    throw error;
  }
}

/**
 * Rolls up every STATISTICS_ROLLUP_INTERVAL_MS, and once more at close so that the tallied events of a stopping
 * instance are kept. The closing one gets CLOSE_WAIT_MS like any background run: past that, only the events tallied
 * since the last rollup are lost, as the log says.
 */
export function scheduleStatistics(runtime: StatisticsServices, counted: Counted): void {
  schedulePeriodic(runtime, {
    name: 'rolling up statistics',
    everyMs: runtime.config.statistics.rollupIntervalMs,
    run: () => rollUpStatistics(runtime, counted),
  });
  runtime.onClose(async () => {
    const closing = rollUpStatistics(runtime, counted).catch((error: unknown) =>
      runtime.log.warn('rolling up statistics at close failed', { error: String(error) }),
    );
    if ((await settlesWithin(closing, CLOSE_WAIT_MS)) === 'late') {
      runtime.log.warn(
        'rolling up statistics at close did not finish: the events tallied since the last rollup are not counted',
      );
    }
  });
}
