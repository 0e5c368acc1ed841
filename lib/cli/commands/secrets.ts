import type { JWK } from 'jose';
import { coreSettings } from '../../config/core.js';
import {
  RotationError,
  rotateCookieKeys,
  rotateJwks,
  ROTATION_STEPS,
  type RotationStep,
} from '../../config/rotation.js';
import { environmentFile, newSecretValues, secretVariables, type SecretValues } from '../../config/secret-values.js';
import { readSection } from '../../config/settings.js';
import { CliError, UsageError, type CliIo, type Command } from '../command.js';

const ROTATED = ['jwks', 'cookie-keys'] as const;
type Rotated = (typeof ROTATED)[number];

const USAGE = `Usage:
  age-provider secrets [--json]
  age-provider secrets rotate jwks|cookie-keys add|switch|retire [--json]

Prints new COOKIE_KEYS, JWKS (an RS256 signing key) and SEALING_KEY, the secrets every instance sharing a database
must be given, as lines of an environment file (systemd EnvironmentFile, docker compose env_file, node --env-file):

  age-provider secrets > /etc/age-provider/secrets.env && chmod 600 /etc/age-provider/secrets.env

"rotate" reads the current JWKS or COOKIE_KEYS from the environment and prints the next value of that one variable.
Give every instance each step's value, one instance at a time, before running the next step:
  add      a new key is published (JWKS) or accepted (COOKIE_KEYS); the old key still signs
  switch   the new key signs; the old one still verifies what it signed
  retire   the old key is dropped: only once everything it signed has expired (docs/configuration.md "Rotating keys")

Options:
  --json   print one JSON object of the variables instead, e.g. {"COOKIE_KEYS": "...", "JWKS": "...", "SEALING_KEY": "..."}`;

/** The configured value of one secret, checked as the service checks it. */
function configured<K extends 'jwks' | 'cookieKeys'>(key: K, io: CliIo): NonNullable<SecretValues[K]> {
  const { env } = coreSettings.spec[key];
  const { value } = readSection<{ value?: SecretValues[K] }, { value?: SecretValues[K] }>(
    { spec: { value: { ...coreSettings.spec[key], optional: true } } },
    io.env,
  );
  if (value === undefined)
    throw new CliError(`${env} is not set: "rotate" starts from the value every instance has now`);
  return value as NonNullable<SecretValues[K]>;
}

/** One line on stderr saying which key signs and which are only published, by kid or by position. */
function describe(secret: Rotated, values: Partial<SecretValues>): string {
  if (secret === 'jwks') {
    const [signing, ...others] = (values.jwks!.keys as JWK[]).map((key) => key.kid ?? '(no kid)');
    return `JWKS: kid ${signing!} signs${others.length > 0 ? `; ${others.join(', ')} published to verify only` : ''}`;
  }
  const count = values.cookieKeys!.length;
  return `COOKIE_KEYS: the first key signs${count > 1 ? `; ${count - 1} more verify only` : ''}`;
}

function rotation(positionals: string[], io: CliIo): Partial<SecretValues> {
  const [secret, step, ...extra] = positionals;
  if (!(ROTATED as readonly string[]).includes(secret ?? ''))
    throw new UsageError(
      `rotate what? "jwks" or "cookie-keys" (SEALING_KEY does not rotate, see docs/configuration.md)`,
    );
  if (!(ROTATION_STEPS as readonly string[]).includes(step ?? ''))
    throw new UsageError(`which step? ${ROTATION_STEPS.join(', ')}`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  try {
    const values =
      secret === 'jwks'
        ? { jwks: rotateJwks(configured('jwks', io), step as RotationStep) }
        : { cookieKeys: rotateCookieKeys(configured('cookieKeys', io), step as RotationStep) };
    io.stderr(`${describe(secret as Rotated, values)}\n`);
    return values;
  } catch (error) {
    if (error instanceof RotationError) throw new CliError(error.message);
    throw error;
  }
}

export const secretsCommand: Command = {
  name: 'secrets',
  summary: 'print new COOKIE_KEYS, JWKS and SEALING_KEY, or the next step of rotating one',
  usage: USAGE,
  options: { json: { type: 'boolean' } },
  async run({ values, positionals }, io) {
    const [subcommand, ...rest] = positionals;
    if (subcommand !== undefined && subcommand !== 'rotate')
      throw new UsageError(`unknown subcommand "${subcommand}": use "rotate" or nothing`);
    const variables = secretVariables(subcommand === 'rotate' ? rotation(rest, io) : newSecretValues());
    io.stdout(values.json === true ? `${JSON.stringify(variables, null, 2)}\n` : `${environmentFile(variables)}\n`);
    return 0;
  },
};
