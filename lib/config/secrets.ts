import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JWKS } from 'oidc-provider';
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
 * Configured secrets win; any that are missing are generated once into DATA_DIR/secrets.json and reused.
 * Returns a warning when generated secrets back a shared database, where every instance must use the same ones.
 */
export async function resolveSecrets(settings: Settings): Promise<{ secrets: Secrets; warning?: string }> {
  const missing = !settings.cookieKeys || !settings.jwks || !settings.sealingKey;
  const generated = missing ? await readOrCreate(settings.dataDir) : undefined;
  const secrets: Secrets = {
    cookieKeys: settings.cookieKeys ?? generated!.stored.cookieKeys,
    jwks: settings.jwks ?? generated!.stored.jwks,
    sealingKey: Buffer.from(settings.sealingKey ?? generated!.stored.sealingKey, 'base64'),
  };
  if (secrets.sealingKey.length !== 32) throw new Error('invalid configuration SEALING_KEY: must be base64 of 32 bytes');
  const warning = generated && settings.databaseUrl
    ? `COOKIE_KEYS, JWKS or SEALING_KEY not configured: using keys from ${join(settings.dataDir, 'secrets.json')}. Every instance sharing DATABASE_URL must use the same keys; configure them explicitly.`
    : undefined;
  return warning ? { secrets, warning } : { secrets };
}
