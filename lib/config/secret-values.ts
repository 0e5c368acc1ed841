import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import type { JWK } from 'jose';
import type { JWKS } from 'oidc-provider';

/**
 * The three secrets every instance shares, in the form the service reads them (COOKIE_KEYS, JWKS, SEALING_KEY), and how
 * each is made: one owner for `age-provider secrets`, its rotation steps and the keys generated into DATA_DIR.
 */
export interface SecretValues {
  cookieKeys: string[];
  jwks: JWKS;
  /** base64 of 32 random bytes */
  sealingKey: string;
}

/**
 * A private signing key. RS256 is what the provider signs with (the checker's signed result) and what every JOSE
 * library verifies; `alg`, `use` and a random `kid` are set so relying parties pick the key by `kid` alone.
 */
export function newSigningKey(): JWK {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' };
}

/** One COOKIE_KEYS entry: 32 random bytes, base64url (43 characters, no comma). */
export const newCookieKey = (): string => randomBytes(32).toString('base64url');

export const newSealingKey = (): string => randomBytes(32).toString('base64');

export const newSecretValues = (): SecretValues => ({
  cookieKeys: [newCookieKey()],
  jwks: { keys: [newSigningKey()] } as JWKS,
  sealingKey: newSealingKey(),
});

/** Each secret as its environment variable holds it: JWKS as one line of JSON, COOKIE_KEYS comma-separated. */
export function secretVariables(values: Partial<SecretValues>): Record<string, string> {
  return {
    ...(values.cookieKeys ? { COOKIE_KEYS: values.cookieKeys.join(',') } : {}),
    ...(values.jwks ? { JWKS: JSON.stringify(values.jwks) } : {}),
    ...(values.sealingKey ? { SEALING_KEY: values.sealingKey } : {}),
  };
}

/**
 * Variables as lines of an environment file. Single quotes keep JWKS's JSON intact for systemd's EnvironmentFile,
 * docker compose's env_file, Node's --env-file and a shell's `set -a; . file`; no value holds a single quote.
 */
export const environmentFile = (variables: Record<string, string>): string =>
  Object.entries(variables)
    .map(([name, value]) => `${name}='${value}'`)
    .join('\n');
