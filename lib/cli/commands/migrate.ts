import { assertCompatible, schemaState, type KnownMigration, type SchemaState } from '../../store/migrate.js';
import { subcommandOf } from '../arguments.js';
import { output, UsageError, type Command } from '../command.js';
import { withConfiguredDatabase } from '../configured-database.js';

const listed = (known: KnownMigration[]): string =>
  known.length ? known.map(({ name, step }) => `  ${name} (${step})`).join('\n') : '  none';

function describe({ applied, pending, newer }: SchemaState): string {
  const lines = [
    `applied (${applied.length}):\n${listed(applied)}`,
    `pending (${pending.length}):\n${listed(pending)}`,
  ];
  if (newer.length)
    lines.push(
      `applied by a newer build, unknown to this one (${newer.length}):\n${newer
        .map(
          ({ name, step, recordedBy }) =>
            `  ${name} (${step ?? 'not recorded'}${recordedBy ? `, age-provider ${recordedBy}` : ''})`,
        )
        .join('\n')}`,
    );
  return lines.join('\n');
}

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'apply pending database migrations, or show them (status, --dry-run)',
  usage: `Usage: age-provider migrate [--dry-run] [--json]
       age-provider migrate status [--json]

Applies the pending migrations in migrations/ to DATABASE_URL, or to the embedded database in DATA_DIR, one log line
each. Migrations are forward only. "serve" applies them too.
  status      lists the applied and the pending migrations, each with its step (expand or contract), and those a
              newer build applied; changes nothing
  --dry-run   names the migrations that would be applied, and whether this build may run on the database at all;
              changes nothing
A build refuses a database on which a newer build applied a contract step it does not know; expand steps of a newer
build are fine (docs/upgrading.md).`,
  options: { json: { type: 'boolean' }, 'dry-run': { type: 'boolean' } },
  async run({ values, positionals }, io) {
    const json = values.json === true;
    if (positionals.length) {
      subcommandOf(migrateCommand, positionals, ['status']);
      if (values['dry-run']) throw new UsageError('"migrate status" changes nothing: it takes no --dry-run');
      return withConfiguredDatabase(
        io,
        async ({ db }) => {
          const state = await schemaState(db);
          output(io, json, state, describe(state));
          return 0;
        },
        { migrating: false },
      );
    }
    if (values['dry-run'])
      return withConfiguredDatabase(
        io,
        async ({ db }) => {
          const state = await schemaState(db);
          assertCompatible(state);
          output(
            io,
            json,
            { wouldApply: state.pending },
            state.pending.length
              ? `would apply (${state.pending.length}):\n${listed(state.pending)}`
              : 'already up to date: nothing would be applied',
          );
          return 0;
        },
        { migrating: false },
      );
    return withConfiguredDatabase(io, async ({ applied }) => {
      output(io, json, { applied }, applied.length ? `applied: ${applied.join(', ')}` : 'already up to date');
      return 0;
    });
  },
};
