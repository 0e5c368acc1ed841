import type { SettingsSection } from '../config/settings.js';

/** How the statistics are kept (docs/statistics.md). */
export interface StatisticsSettings {
  /** milliseconds between two rollups of each instance: how fresh the statistics are */
  rollupIntervalMs: number;
}

export const statisticsSettings: SettingsSection<StatisticsSettings> = {
  spec: {
    rollupIntervalMs: {
      env: 'STATISTICS_ROLLUP_INTERVAL_MS',
      schema: { type: 'integer', minimum: 50, maximum: 3600000 },
      default: 60000,
    },
  },
};
