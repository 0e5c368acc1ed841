import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { coreSettings } from './core.js';
import { newSecretValues, type SecretValues } from './secret-values.js';
import type { Secrets, Settings } from './types.js';

/** Where the secrets generated for an instance without configured ones are kept (a backup of DATA_DIR carries it). */
export const generatedSecretsFile = (dataDir: string): string => join(dataDir, 'secrets.json');

async function readOrCreate(dataDir: string): Promise<{ stored: SecretValues; created: boolean }> {
  const file = generatedSecretsFile(dataDir);
  try {
    return { stored: JSON.parse(await readFile(file, 'utf8')) as SecretValues, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  // DATA_DIR is the owner's alone (it also holds the embedded database).
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const stored = newSecretValues();
  await writeFile(file, JSON.stringify(stored, null, 2), { mode: 0o600, flag: 'wx' });
  await chmod(file, 0o600);
  return { stored, created: true };
}

/**
 * Configured secrets win; any that are missing are generated once into DATA_DIR/secrets.json and reused. On PostgreSQL
 * that is refused unless SINGLE_INSTANCE=true: every instance sharing the database must sign and seal with the same
 * keys, and keys generated per instance break every flow that crosses instances.
 */
export async function resolveSecrets(settings: Settings): Promise<Secrets> {
  const missing = (['cookieKeys', 'jwks', 'sealingKey'] as const).filter((key) => !settings[key]);
  if (missing.length > 0 && settings.databaseUrl && !settings.singleInstance) {
    throw new Error(
      `${missing.map((key) => coreSettings.spec[key].env).join(', ')} not configured: on PostgreSQL every instance must share COOKIE_KEYS, JWKS and ` +
        'SEALING_KEY, so configure them (`age-provider secrets` makes all three, see docs/configuration.md), or set SINGLE_INSTANCE=true when only this instance uses the database.',
    );
  }
  const generated = missing.length > 0 ? (await readOrCreate(settings.dataDir)).stored : undefined;
  const secrets: Secrets = {
    cookieKeys: settings.cookieKeys ?? generated!.cookieKeys,
    jwks: settings.jwks ?? generated!.jwks,
    sealingKey: Buffer.from(settings.sealingKey ?? generated!.sealingKey, 'base64'),
  };
  if (secrets.sealingKey.length !== 32)
    throw new Error('invalid configuration SEALING_KEY: must be base64 of 32 bytes');
  return secrets;
}
