import { output, type Command } from '../command.js';
import { withConfiguredDatabase } from '../configured-database.js';

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'apply pending database migrations',
  usage: `Usage: age-provider migrate [--json]

Applies the pending migrations in migrations/ to DATABASE_URL, or to the embedded database in DATA_DIR.
Migrations are forward only. "serve" applies them too.`,
  options: { json: { type: 'boolean' } },
  async run({ values }, io) {
    return withConfiguredDatabase(io, async ({ applied }) => {
      output(
        io,
        values.json === true,
        { applied },
        applied.length ? `applied: ${applied.join(', ')}` : 'already up to date',
      );
      return 0;
    });
  },
};
