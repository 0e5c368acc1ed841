import type { JWKS } from 'oidc-provider';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** Settings an operator gives as environment variables or as options to createAgeProvider (same names, camelCase). */
export interface Settings {
  port: number;
  host: string;
  issuer: string;
  databaseUrl?: string;
  dataDir: string;
  trustProxy: boolean;
  cookieKeys?: string[];
  jwks?: JWKS;
  /** base64 of 32 random bytes */
  sealingKey?: string;
  logLevel: LogLevel;
  /** seconds a verification shared with a website stays valid */
  verificationTtl: number;
  /** seconds an age proof saved to a visitor account stays reusable */
  proofReuseTtl: number;
  /** default age threshold */
  ageThreshold: number;
}

/** The secrets every instance must share; generated into DATA_DIR when not configured. */
export interface Secrets {
  cookieKeys: string[];
  jwks: JWKS;
  sealingKey: Buffer;
}

export type Config = Omit<Settings, 'cookieKeys' | 'jwks' | 'sealingKey'> & Secrets;
