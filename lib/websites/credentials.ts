import { randomToken } from '../security/hashing.js';
import type { Environment } from './models.js';

// Identifiers and secrets with 192-256 bits of entropy, prefixed by environment so a leaked one is recognisable.

export const newPublicKey = (environment: Environment): string => randomToken(24, `pk_${environment.toLowerCase()}_`);

export const newClientId = (environment: Environment): string => randomToken(24, `${environment.toLowerCase()}_`);

export const newClientSecret = (): string => randomToken(32);
