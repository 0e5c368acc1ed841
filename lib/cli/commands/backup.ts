import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { coreSettings } from '../../config/core.js';
import { generatedSecretsFile } from '../../config/secrets.js';
import { readSection } from '../../config/settings.js';
import type { Settings } from '../../config/types.js';
import { packageVersion } from '../../paths.js';
import { openDatabase, pgliteOf } from '../../store/database.js';
import { DatabaseInUseError } from '../../store/embedded-lock.js';
import { requestSnapshot, snapshotOf } from '../../store/embedded-snapshot.js';
import { SECRET_NAMES, writeBackup, type SecretName } from '../backup-file.js';
import { CliError, EXIT, output, UsageError, type CliIo, type Command } from '../command.js';

const USAGE = `Usage: age-provider backup --out FILE [--json]

Copies the embedded database in DATA_DIR into FILE, readable by its owner only (replaced whole if it exists).
The copy is consistent while the server runs: the running server takes it, and answers nothing else while its
files are read (about 2 s per 40 MB: requests wait, none is refused). With no server running, this command opens the database itself.
"age-provider restore --from FILE" puts it back.

The backup carries the secrets the service reads from DATA_DIR/secrets.json (COOKIE_KEYS, JWKS, SEALING_KEY).
Secrets set in the environment are not in it, and the command says so: keep them with the backup, since a
database restored without the same SEALING_KEY has lost its sealed secrets (docs/backup.md).

On PostgreSQL (DATABASE_URL), back up with PostgreSQL's own tools: docs/backup.md.

Options:
  --out FILE   where to write the backup
  --json       print {"file", "bytes", "createdAt", "secrets", "secretsNotIncluded"}`;

const SETTING_OF = { COOKIE_KEYS: 'cookieKeys', JWKS: 'jwks', SEALING_KEY: 'sealingKey' } as const;

/** The database copy: from the running server when one holds DATA_DIR, else taken here. */
async function snapshot(dataDir: string): Promise<Buffer> {
  if (!existsSync(join(dataDir, 'pgdata', 'PG_VERSION')))
    throw new CliError(`DATA_DIR=${dataDir} holds no database to back up`);
  let db;
  try {
    db = await openDatabase({ dataDir });
  } catch (error) {
    if (!(error instanceof DatabaseInUseError)) throw error;
    return requestSnapshot(dataDir).catch((failure: NodeJS.ErrnoException) => {
      throw new CliError(
        failure.code === 'ENOENT'
          ? `the process holding DATA_DIR=${dataDir} takes no backups (an age-provider older than "backup"): stop it, then run backup again`
          : `the server holding DATA_DIR=${dataDir} did not hand over a copy; it may be stopping: try again`,
      );
    });
  }
  try {
    return await snapshotOf(pgliteOf(db));
  } finally {
    await db.destroy();
  }
}

/** DATA_DIR/secrets.json when the service reads any secret from it (those not set in the environment), and which. */
async function generatedSecrets(settings: Settings): Promise<{ names: SecretName[]; file?: string }> {
  let file: string;
  try {
    file = await readFile(generatedSecretsFile(settings.dataDir), 'utf8');
  } catch {
    return { names: [] };
  }
  const stored = JSON.parse(file) as Record<string, unknown>;
  const names = SECRET_NAMES.filter((name) => !settings[SETTING_OF[name]] && stored[SETTING_OF[name]] !== undefined);
  return names.length > 0 ? { names, file } : { names };
}

export const backupCommand: Command = {
  name: 'backup',
  summary: 'copy the embedded database (and its generated secrets) into a file',
  usage: USAGE,
  options: { out: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values }, io: CliIo) {
    if (typeof values.out !== 'string' || values.out === '') throw new UsageError('--out FILE is required');
    const settings = readSection(coreSettings, io.env);
    if (settings.databaseUrl)
      throw new CliError('DATABASE_URL is set: back up PostgreSQL with pg_dump as docs/backup.md shows');
    const dataDir = resolve(settings.dataDir);
    const database = await snapshot(dataDir);
    const secrets = await generatedSecrets({ ...settings, dataDir });
    const createdAt = new Date().toISOString();
    const out = resolve(values.out);
    await writeBackup(
      out,
      {
        createdAt,
        version: packageVersion(),
        database: 'embedded',
        secrets: secrets.names,
        ...(secrets.file === undefined ? {} : { secretsFile: secrets.file }),
      },
      database,
    );
    const missing = SECRET_NAMES.filter((name) => !secrets.names.includes(name));
    if (missing.length > 0) {
      io.stderr(
        `age-provider backup: ${out} does not hold ${missing.join(', ')} (set in the environment): keep them with the backup; without the same SEALING_KEY a restored database has lost its sealed secrets (docs/backup.md)\n`,
      );
    }
    output(
      io,
      values.json === true,
      { file: out, bytes: database.length, createdAt, secrets: secrets.names, secretsNotIncluded: missing },
      `backup written to ${out} (${(database.length / 1e6).toFixed(1)} MB${secrets.names.length > 0 ? `, with ${secrets.names.join(', ')}` : ''})`,
    );
    return EXIT.ok;
  },
};
