import { resolve } from 'node:path';
import { coreSettings } from '../../config/core.js';
import { readSection } from '../../config/settings.js';
import { DatabaseExistsError, restoreEmbedded } from '../../store/database.js';
import { snapshotTar } from '../../store/embedded-snapshot.js';
import { readBackup, SECRET_NAMES } from '../backup-file.js';
import { CliError, EXIT, output, UsageError, type Command } from '../command.js';

const USAGE = `Usage: age-provider restore --from FILE [--json]

Puts the embedded database of a backup ("age-provider backup --out FILE") into DATA_DIR, with the secrets the backup
carries (DATA_DIR/secrets.json). DATA_DIR must hold no database yet, and no running server may hold it: restore into
a new DATA_DIR, then start the server on it. The file is checked whole before anything is written.

Secrets the backup does not carry (COOKIE_KEYS, JWKS, SEALING_KEY set in the environment when it was taken) must be
set to the same values for the restored server: without the same SEALING_KEY its sealed secrets are lost
(docs/backup.md). The server applies any newer migrations when it starts.

Options:
  --from FILE   the backup to restore
  --json        print {"dataDir", "createdAt", "version", "secrets", "secretsNotIncluded"}`;

export const restoreCommand: Command = {
  name: 'restore',
  summary: 'put an embedded database backup into an empty DATA_DIR',
  usage: USAGE,
  options: { from: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values }, io) {
    if (typeof values.from !== 'string' || values.from === '') throw new UsageError('--from FILE is required');
    const settings = readSection(coreSettings, io.env);
    if (settings.databaseUrl)
      throw new CliError('DATABASE_URL is set: restore PostgreSQL with pg_restore as docs/backup.md shows');
    const { header, database } = await readBackup(resolve(values.from));
    const dataDir = resolve(settings.dataDir);
    try {
      await restoreEmbedded(dataDir, snapshotTar(database), header.secretsFile);
    } catch (error) {
      if (error instanceof DatabaseExistsError) throw new CliError(error.message);
      throw error;
    }
    const missing = SECRET_NAMES.filter((name) => !header.secrets.includes(name));
    if (missing.length > 0) {
      io.stderr(
        `age-provider restore: the backup does not hold ${missing.join(', ')}: give the server the values it had when the backup was taken (docs/backup.md)\n`,
      );
    }
    output(
      io,
      values.json === true,
      {
        dataDir,
        createdAt: header.createdAt,
        version: header.version,
        secrets: header.secrets,
        secretsNotIncluded: missing,
      },
      `restored the backup of ${header.createdAt} (age-provider ${header.version}) into ${dataDir}`,
    );
    return EXIT.ok;
  },
};
