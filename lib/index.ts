export { createAgeProvider, type AgeProvider, type AgeProviderOptions } from './app/app.js';
export type { Config } from './app/config.js';
export type { Settings } from './config/types.js';
export { ConfigError } from './config/settings.js';
/** The embedded database is held by another live process (its lock names it). */
export { DatabaseInUseError } from './store/embedded-lock.js';
/** What the services refuse with (a Refusal's kind, an HttpError's status): an embedder calling them maps it to its own answer. */
export { HttpError } from './http/errors.js';
export { Refusal, type RefusalKind } from './refusal.js';
export type { Clock } from './clock.js';
export type { Logger } from './log.js';
export type { BrandingOptions } from './branding/index.js';
