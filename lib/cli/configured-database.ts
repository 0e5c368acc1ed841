import { loadConfig, type Config } from '../app/config.js';
import { createLogger } from '../log.js';
import { openConfiguredDatabase, type Database } from '../store/database.js';
import { migrate } from '../store/migrate.js';
import type { CliIo } from './command.js';
import { checkDatabaseReachable } from './database-reachable.js';

export interface ConfiguredDatabase {
  config: Config;
  db: Database;
  /** migrations applied on opening (none when it was up to date) */
  applied: string[];
}

/**
 * Runs `work` on the database the configuration names (DATABASE_URL, else the embedded one in DATA_DIR), brought up
 * to date first so a command works on a fresh database (unless `migrating` is false: `migrate status` and
 * `--dry-run` only look), and closed afterwards (releasing the embedded lock).
 */
export async function withConfiguredDatabase<T>(
  io: CliIo,
  work: (database: ConfiguredDatabase) => Promise<T>,
  { migrating = true } = {},
): Promise<T> {
  const { config } = await loadConfig({}, io.env);
  await checkDatabaseReachable(config.databaseUrl);
  const log = createLogger(config.logLevel, io.stderr);
  const db = await openConfiguredDatabase(config, log);
  try {
    return await work({ config, db, applied: migrating ? await migrate(db, log) : [] });
  } finally {
    await db.destroy();
  }
}
