import { brandingSettings } from '../branding/settings.js';
import { geoSettings } from '../geo/settings.js';
import { limitSettings } from '../http/rate-limit.js';
import { redisSettings } from '../http/shared-limits.js';
import { policySettings } from '../policy/settings.js';
import { mailSettings } from '../mail/settings.js';
import { CHALLENGE_MODULES } from '../verification/registry.js';
import { clientCacheSettings } from '../websites/client-cache.js';
import { statisticsSettings } from '../statistics/settings.js';
import { webhookSettings } from '../webhooks/settings.js';
import { coreSettings } from '../config/core.js';
import { variablesOf, type SettingsSection } from '../config/settings.js';

/**
 * Every section of the configuration, in the order they are read and documented: the service's own settings, then
 * each feature's, whose spec lives beside its code. A challenge's section comes with its registry entry
 * (ChallengeModule.settings). Nothing else reads the environment (test/config/documented.test.ts).
 */
export const SECTIONS = {
  core: coreSettings,
  branding: brandingSettings,
  geo: geoSettings,
  limits: limitSettings,
  clientCache: clientCacheSettings,
  policies: policySettings,
  redis: redisSettings,
  mail: mailSettings,
  webhooks: webhookSettings,
  statistics: statisticsSettings,
} as const;

/** The challenges' sections, by challenge name. */
export const challengeSections = (): ReadonlyArray<readonly [string, SettingsSection<unknown, unknown>]> =>
  CHALLENGE_MODULES.flatMap((module) => (module.settings ? [[module.name, module.settings] as const] : []));

/** Every environment variable any section reads: what the docs must describe. */
export const settingVariables = (): string[] =>
  [...Object.values(SECTIONS), ...challengeSections().map(([, section]) => section)]
    .flatMap((section: SettingsSection<unknown, unknown>) => variablesOf(section));
