import type { LanguageChoice } from '../i18n/languages.js';
import type { Environment, WebsiteChallenge } from '../verification/challenge.js';

export type { Environment } from '../verification/challenge.js';
export const ENVIRONMENTS = ['LIVE', 'TEST'] as const satisfies readonly Environment[];

export type OAuth2Status = 'ACTIVE' | 'DISABLED';

/** Website key. */
export interface WebsiteKey {
  environment: Environment;
  publicKey: string;
}

/** Website. */
export interface Website {
  id: number;
  name: string;
  domain: string;
  language: LanguageChoice;
  regions: string[];
  challenges: WebsiteChallenge[];
  keys: WebsiteKey[];
}

/** OAuth2 configuration; the credentials appear only while ACTIVE. */
export interface OAuth2Configuration {
  environment: Environment;
  redirectUris: string[];
  status: OAuth2Status;
  clientId?: string;
  clientSecret?: string;
}

// Inputs as callers hold them (API bodies, platform forms); every service validates them with the API's schemas.

export interface WebsiteCreateInput {
  name: string;
  domain: string;
  language?: string;
  challenges?: string[];
  regions?: string[];
}

export interface WebsiteUpdateInput {
  name?: string;
  language?: string;
  challenges?: string[];
  regions?: string[];
}

export interface OAuth2CreateInput {
  redirectUris: string[];
}

export interface OAuth2UpdateInput {
  redirectUris?: string[];
  status?: string;
}
