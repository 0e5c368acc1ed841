import { loadConfig } from '../../config/load.js';
import { openDatabase } from '../../store/database.js';
import { migrate } from '../../store/migrate.js';
import { output, type Command } from '../command.js';

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'apply pending database migrations',
  usage: `Usage: age-provider migrate [--json]

Applies the pending migrations in migrations/ to DATABASE_URL, or to the embedded database in DATA_DIR.
Migrations are forward only. "serve" applies them too.`,
  options: { json: { type: 'boolean' } },
  async run({ values }, io) {
    const { config } = await loadConfig({}, io.env);
    const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    try {
      const applied = await migrate(db);
      output(io, values.json === true, { applied }, applied.length ? `applied: ${applied.join(', ')}` : 'already up to date');
      return 0;
    } finally {
      await db.destroy();
    }
  },
};
