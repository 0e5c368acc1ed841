export { createAgeProvider, type AgeProvider, type AgeProviderOptions } from './app.js';
export type { Config, Settings } from './config/types.js';
export { ConfigError } from './config/load.js';
export type { Clock } from './clock.js';
export type { Logger } from './log.js';
export type { BrandingOptions } from './branding/index.js';
