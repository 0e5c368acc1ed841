import { createHash } from 'node:crypto';
import { chmod, open, readFile, rename, rm } from 'node:fs/promises';
import type { JSONSchemaType } from 'ajv';
import { compileSchema } from '../http/form.js';
import { CliError } from './command.js';

/**
 * A backup file of the embedded database: a first line naming the format, one line of JSON saying what the file
 * holds (the header), then the database copy (a gzipped tar of its data folder, embedded-snapshot.ts). The header
 * carries DATA_DIR/secrets.json when the service took secrets from it: a restore without them loses every sealed
 * secret and signature, so they travel with the database unless the operator keeps them elsewhere (the environment).
 */
const MAGIC = 'age-provider backup\n';

/** The secrets a backup can carry, by their environment variables. */
export const SECRET_NAMES = ['COOKIE_KEYS', 'JWKS', 'SEALING_KEY'] as const;
export type SecretName = (typeof SECRET_NAMES)[number];

export interface BackupHeader {
  format: 1;
  /** ISO time the copy was taken */
  createdAt: string;
  /** the version of age-provider that took it */
  version: string;
  database: 'embedded';
  /** SHA-256 (hex) of the database copy: a truncated or altered file is refused before anything is written */
  databaseSha256: string;
  /** the secrets the copy carries (those the service read from DATA_DIR/secrets.json) */
  secrets: SecretName[];
  /** DATA_DIR/secrets.json as it was, when `secrets` names any */
  secretsFile?: string;
}

export interface Backup {
  header: BackupHeader;
  database: Buffer;
}

const validateHeader = compileSchema<BackupHeader>({
  type: 'object',
  properties: {
    format: { type: 'integer', const: 1 },
    createdAt: { type: 'string', maxLength: 40 },
    version: { type: 'string', maxLength: 40 },
    database: { type: 'string', const: 'embedded' },
    databaseSha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    secrets: { type: 'array', items: { type: 'string', enum: [...SECRET_NAMES] }, maxItems: 3, uniqueItems: true },
    secretsFile: { type: 'string', maxLength: 1_000_000, nullable: true },
  },
  required: ['format', 'createdAt', 'version', 'database', 'databaseSha256', 'secrets'],
  additionalProperties: false,
} as unknown as JSONSchemaType<BackupHeader>);

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Writes the backup to `path`, readable by its owner only, whole or not at all: it is written beside the target and
 * renamed over it, so an interrupted backup never leaves a file that looks complete.
 */
export async function writeBackup(
  path: string,
  header: Omit<BackupHeader, 'format' | 'databaseSha256'>,
  database: Buffer,
): Promise<void> {
  const full: BackupHeader = { format: 1, ...header, databaseSha256: sha256(database) };
  const partial = `${path}.partial-${String(process.pid)}`;
  const file = await open(partial, 'w', 0o600);
  try {
    // The mode given to open is masked by the umask and ignored for an existing file: set it outright.
    await file.chmod(0o600);
    await file.write(`${MAGIC}${JSON.stringify(full)}\n`);
    await file.write(database);
    await file.sync();
  } catch (error) {
    await file.close();
    await rm(partial, { force: true });
    throw error;
  }
  await file.close();
  await rename(partial, path);
  await chmod(path, 0o600);
}

/** Reads and checks a backup file; anything else is refused in one line, before a restore writes anything. */
export async function readBackup(path: string): Promise<Backup> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const notBackup = new CliError(`${path} is not an age-provider backup (made by "age-provider backup")`);
  if (!bytes.subarray(0, MAGIC.length).equals(Buffer.from(MAGIC))) throw notBackup;
  const headerEnd = bytes.indexOf(0x0a, MAGIC.length);
  if (headerEnd < 0) throw notBackup;
  let header: unknown;
  try {
    header = JSON.parse(bytes.subarray(MAGIC.length, headerEnd).toString('utf8'));
  } catch {
    throw notBackup;
  }
  if (!validateHeader(header)) throw notBackup;
  const database = bytes.subarray(headerEnd + 1);
  if (sha256(database) !== header.databaseSha256)
    throw new CliError(`${path} is damaged or incomplete (its database copy does not match its checksum)`);
  return { header, database };
}
