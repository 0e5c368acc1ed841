import type { Knex } from 'knex';
import { migrations, type MigrationStep } from '../../migrations/index.js';
import type { Logger } from '../log.js';
import { packageVersion } from '../paths.js';
import type { Database } from './database.js';

/** knex's own record of the applied migrations, and ours of what each one is (migrations/023_migration_steps.ts). */
const APPLIED_TABLE = 'knex_migrations';
const STEPS_TABLE = 'migration_steps';

const knownNames = new Set(migrations.map(([name]) => name));

function sourceLoggingTo(log: Logger | undefined): Knex.MigrationSource<string> {
  return {
    getMigrations: async () => migrations.map(([name]) => name),
    getMigrationName: (name) => name,
    getMigration: async (name) => {
      const found = migrations.find(([candidate]) => candidate === name);
      if (!found) throw new Error(`unknown migration ${name}`);
      const migration = found[1];
      return {
        // Each migration runs in its own transaction: a schema change on a large table may take longer than
        // DB_STATEMENT_TIMEOUT_MS, which bounds the requests, so it is lifted for that transaction only.
        up: async (knex: Knex) => {
          const started = Date.now();
          await knex.raw('set local statement_timeout = 0');
          await migration.up(knex);
          log?.info('migration applied', { migration: name, step: migration.step, ms: Date.now() - started });
        },
        down: (knex: Knex) => migration.down(knex),
      };
    },
  };
}

/** A migration the database has but this build does not know: applied by a newer build. */
export interface NewerMigration {
  name: string;
  /** as the build that applied it recorded it; undefined when it was not recorded (that build stopped first) */
  step: MigrationStep | undefined;
  recordedBy: string | undefined;
}

/** A migration of this build. */
export interface KnownMigration {
  name: string;
  step: MigrationStep;
}

export interface SchemaState {
  /** migrations of this build, applied */
  applied: KnownMigration[];
  /** migrations of this build, not applied yet */
  pending: KnownMigration[];
  /** applied, unknown to this build, oldest first */
  newer: NewerMigration[];
}

/** Where the database stands for this build: read only, nothing is created or changed. */
export async function schemaState(db: Database): Promise<SchemaState> {
  const done = (await db.schema.hasTable(APPLIED_TABLE))
    ? ((await db(APPLIED_TABLE).orderBy('id').pluck('name')) as string[])
    : [];
  const unknown = done.filter((name) => !knownNames.has(name));
  const recorded =
    unknown.length && (await db.schema.hasTable(STEPS_TABLE))
      ? ((await db(STEPS_TABLE).whereIn('name', unknown).select('name', 'step', 'recorded_by')) as Array<{
          name: string;
          step: MigrationStep;
          recorded_by: string;
        }>)
      : [];
  const doneSet = new Set(done);
  const known = migrations.map(([name, { step }]) => ({ name, step }));
  return {
    applied: known.filter(({ name }) => doneSet.has(name)),
    pending: known.filter(({ name }) => !doneSet.has(name)),
    newer: unknown.map((name) => {
      const row = recorded.find((candidate) => candidate.name === name);
      return { name, step: row?.step, recordedBy: row?.recorded_by };
    }),
  };
}

/** This build may not run on the database: a newer build contracted the schema (one line, what to do included). */
export class IncompatibleSchemaError extends Error {
  override name = 'IncompatibleSchemaError';
}

/**
 * Throws unless every migration this build does not know is a recorded expand step: an unrecorded one is treated as
 * a contract step, since nothing says this build may run beside it.
 */
export function assertCompatible({ newer }: SchemaState): void {
  const blocking = newer.filter((migration) => migration.step !== 'expand');
  if (!blocking.length) return;
  const newest = newer.findLast((migration) => migration.recordedBy)?.recordedBy;
  const by = newest ? `age-provider ${newest}` : 'a newer age-provider';
  const names = blocking
    .map((migration) => `${migration.name} (${migration.step ? 'a contract step' : 'not recorded'})`)
    .join(', ');
  throw new IncompatibleSchemaError(
    `this build (age-provider ${packageVersion()}) is older than its database: ${by} applied ${names}, which this build does not know; run ${newest ? `age-provider ${newest} or later` : 'the newer build'}, or restore the backup taken before that upgrade (docs/upgrading.md)`,
  );
}

/**
 * Applies pending migrations, one log line each, and returns the names applied. A database a newer build migrated is
 * accepted when everything this build does not know is an expand step (logged once), and refused otherwise.
 */
export async function migrate(db: Database, log?: Logger): Promise<string[]> {
  const state = await schemaState(db);
  assertCompatible(state);
  if (state.newer.length)
    log?.warn('the database has expand migrations of a newer build, which this build runs beside', {
      migrations: state.newer.map(({ name }) => name),
      newerBuild: state.newer.at(-1)?.recordedBy,
      thisBuild: packageVersion(),
    });
  const [, applied] = (await db.migrate.latest({
    migrationSource: sourceLoggingTo(log),
    // knex refuses applied migrations it does not know ("The migration directory is corrupt"): assertCompatible
    // decided instead.
    disableMigrationsListValidation: true,
  })) as [number, string[]];
  await recordSteps(db);
  return applied;
}

/** Records what each migration of this build is, for builds that do not know them (existing rows are left alone). */
async function recordSteps(db: Database): Promise<void> {
  const recordedBy = packageVersion();
  await db(STEPS_TABLE)
    .insert(migrations.map(([name, migration]) => ({ name, step: migration.step, recorded_by: recordedBy })))
    .onConflict('name')
    .ignore();
}
