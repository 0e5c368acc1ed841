import { epochSeconds } from '../clock.js';
import type { CheckerServices } from './services.js';
import { randomToken } from '../security/hashing.js';
import type { Target } from './requests.js';

/** What the checker's OAuth2 `state` carries, sealed: whose page asked, and how the result goes back to it. */
export interface CheckerState {
  publicKey: string;
  origin: string;
  target: Target;
  returnTo?: string;
}

/** A state outlives no interaction (1 hour, the provider's interaction lifetime). */
const STATE_LIFETIME_SECONDS = 3600;

interface Sealed {
  k: string;
  o: string;
  t: Target;
  r?: string;
  /** issued at, epoch seconds */
  i: number;
  /** makes every state unique */
  n: string;
}

export function sealState(runtime: CheckerServices, state: CheckerState): string {
  const sealed: Sealed = {
    k: state.publicKey,
    o: state.origin,
    t: state.target,
    i: epochSeconds(runtime.clock.now()),
    n: randomToken(12),
    ...(state.returnTo ? { r: state.returnTo } : {}),
  };
  return runtime.sealer.seal(JSON.stringify(sealed));
}

/** The state we sealed, still fresh; undefined for anything else (forged, altered, expired). */
export function openState(runtime: Pick<CheckerServices, 'sealer' | 'clock'>, value: string): CheckerState | undefined {
  let sealed: Sealed;
  try {
    sealed = JSON.parse(runtime.sealer.unseal(value)) as Sealed;
  } catch {
    return undefined;
  }
  if (epochSeconds(runtime.clock.now()) - sealed.i > STATE_LIFETIME_SECONDS) return undefined;
  return { publicKey: sealed.k, origin: sealed.o, target: sealed.t, ...(sealed.r ? { returnTo: sealed.r } : {}) };
}
