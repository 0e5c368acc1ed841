import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JWKS } from 'oidc-provider';
import { coreSettings } from './core.js';
import type { Secrets, Settings } from './types.js';

interface StoredSecrets {
  cookieKeys: string[];
  jwks: JWKS;
  sealingKey: string;
}

function generate(): StoredSecrets {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' };
  return {
    cookieKeys: [randomBytes(32).toString('base64url')],
    jwks: { keys: [jwk] } as JWKS,
    sealingKey: randomBytes(32).toString('base64'),
  };
}

async function readOrCreate(dataDir: string): Promise<{ stored: StoredSecrets; created: boolean }> {
  const file = join(dataDir, 'secrets.json');
  try {
    return { stored: JSON.parse(await readFile(file, 'utf8')) as StoredSecrets, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  // DATA_DIR is the owner's alone (it also holds the embedded database).
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const stored = generate();
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
        'SEALING_KEY, so configure them (see docs/configuration.md), or set SINGLE_INSTANCE=true when only this instance uses the database.',
    );
  }
  const generated = missing.length > 0 ? (await readOrCreate(settings.dataDir)).stored : undefined;
  const secrets: Secrets = {
    cookieKeys: settings.cookieKeys ?? generated!.cookieKeys,
    jwks: settings.jwks ?? generated!.jwks,
    sealingKey: Buffer.from(settings.sealingKey ?? generated!.sealingKey, 'base64'),
  };
  if (secrets.sealingKey.length !== 32) throw new Error('invalid configuration SEALING_KEY: must be base64 of 32 bytes');
  return secrets;
}
