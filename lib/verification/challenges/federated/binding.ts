import { randomToken } from '../../../security/hashing.js';
import type { Sealer } from '../../../security/sealing.js';

/** What the OAuth2 `state` sent to a provider carries, sealed: the interaction it belongs to and the challenge. */
export interface StateBinding {
  uid: string;
  challenge: string;
}

/**
 * A fresh `state`: opaque to the provider, unique per start (a random part), and readable only by us, so the
 * fixed callback URI can find the interaction without the provider ever seeing its uid.
 */
export function bindState(sealer: Sealer, binding: StateBinding): string {
  return sealer.seal(JSON.stringify({ u: binding.uid, c: binding.challenge, r: randomToken(16) }));
}

/** The binding inside a `state` we issued, or undefined for anything else (tampered, foreign, malformed). */
export function readStateBinding(sealer: Sealer, state: string): StateBinding | undefined {
  try {
    const value: unknown = JSON.parse(sealer.unseal(state));
    if (typeof value !== 'object' || value === null) return undefined;
    const { u, c } = value as { u?: unknown; c?: unknown };
    return typeof u === 'string' && typeof c === 'string' ? { uid: u, challenge: c } : undefined;
  } catch {
    return undefined;
  }
}
