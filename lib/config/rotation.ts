import type { JWK } from 'jose';
import type { JWKS } from 'oidc-provider';
import { newCookieKey, newSigningKey } from './secret-values.js';

/**
 * The three steps of rotating a key list whose first key signs and every key verifies (JWKS, COOKIE_KEYS), so that no
 * instance ever meets a signature it cannot check while instances restart one at a time:
 * `add` appends a new key (every instance learns it; still the old one signs), `switch` moves it first (it signs),
 * `retire` drops every key but the first once nothing signed by the others is still in use (docs/configuration.md
 * "Rotating keys").
 */
export const ROTATION_STEPS = ['add', 'switch', 'retire'] as const;
export type RotationStep = (typeof ROTATION_STEPS)[number];

/** A step that does not apply to the list as it is (e.g. `switch` with one key): the message says what to do. */
export class RotationError extends Error {
  override name = 'RotationError';
}

function rotate<T>(keys: readonly T[], step: RotationStep, make: () => T): T[] {
  if (step === 'add') {
    if (keys.length > 1)
      throw new RotationError(
        `a rotation is under way (${keys.length} keys): finish it with "switch" and "retire" first`,
      );
    return [...keys, make()];
  }
  if (keys.length < 2) throw new RotationError(`only one key: "${step}" follows "add"`);
  return step === 'switch' ? [keys[keys.length - 1]!, ...keys.slice(0, -1)] : [keys[0]!];
}

export const rotateJwks = (jwks: JWKS, step: RotationStep): JWKS =>
  ({ keys: rotate(jwks.keys as JWK[], step, newSigningKey) }) as JWKS;

export const rotateCookieKeys = (keys: readonly string[], step: RotationStep): string[] =>
  rotate(keys, step, newCookieKey);
