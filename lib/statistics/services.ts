import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Database } from '../store/database.js';
import type { StatisticsSettings } from './settings.js';
import type { Tally } from './tally.js';

/** What the statistics take, in their own terms (lib/app/runtime.ts satisfies them). */
export interface StatisticsServices {
  db: Database;
  clock: Clock;
  log: Logger;
  /** the flow events counted in memory since the last rollup */
  tally: Pick<Tally, 'take' | 'restore'>;
  config: { readonly statistics: StatisticsSettings };
  /** the last rollup runs on close */
  onClose(task: () => Promise<void> | void): void;
}
