import { brandingSettings } from '../branding/settings.js';
import { coreSettings } from '../config/core.js';
import { variablesOf, type SettingsSection } from '../config/settings.js';
import { geoSettings } from '../geo/settings.js';
import { limitSettings } from '../http/rate-limit.js';
import { redisSettings } from '../http/shared-limits.js';
import { mailSettings } from '../mail/settings.js';
import { policySettings } from '../policy/settings.js';
import { statisticsSettings } from '../statistics/settings.js';
import { CHALLENGE_MODULES } from '../verification/registry.js';
import { webhookSettings } from '../webhooks/settings.js';
import { webmasterSettings } from '../webmasters/settings.js';
import { clientCacheSettings } from '../websites/client-cache.js';

/**
 * Every section of the configuration, in the order they are read and documented: the service's own settings, then
 * each feature's, whose spec lives beside its code. `Config` is derived from this table (lib/app/config.ts): a new
 * section is one row here. A challenge's section comes with its registry entry (ChallengeModule.settings). Nothing
 * else reads the environment (test/config/documented.test.ts).
 */
export const SECTIONS = {
  core: coreSettings,
  branding: brandingSettings,
  geo: geoSettings,
  limits: limitSettings,
  /** how long client lookups are remembered, and how the change feed that forgets them is checked */
  clientCache: clientCacheSettings,
  /** the presets in force for every website */
  policies: policySettings,
  /** REDIS_URL: every limit's counters shared through Redis; off (undefined): as lib/http/limits.ts says */
  redis: redisSettings,
  /** the mail server the service sends its own mail through (SMTP_URL), when configured */
  mail: mailSettings,
  webhooks: webhookSettings,
  statistics: statisticsSettings,
  /** how webmasters sign in: whether every one must have a second factor */
  webmasters: webmasterSettings,
} as const;

export type Sections = typeof SECTIONS;
/** The features' sections: every row but the core's. */
export type FeatureSection = Exclude<keyof Sections, 'core'>;
/** What a section reads into. */
export type SectionValue<S> = S extends SettingsSection<infer T, infer _R> ? T : never;
/** What code may give for a section instead of its variables (createAgeProvider's options). */
export type SectionGiven<S> = S extends SettingsSection<infer _T, infer R> ? Partial<R> : never;

/** The features' sections by name, in the table's order. */
export const featureSections = (): Array<[FeatureSection, SettingsSection<unknown, unknown>]> =>
  (Object.keys(SECTIONS) as Array<keyof Sections>).flatMap((name) =>
    name === 'core' ? [] : [[name, SECTIONS[name] as SettingsSection<unknown, unknown>]],
  );

/** The challenges' sections, by challenge name. */
export const challengeSections = (): ReadonlyArray<readonly [string, SettingsSection<unknown, unknown>]> =>
  CHALLENGE_MODULES.flatMap((module) => (module.settings ? [[module.name, module.settings] as const] : []));

/** Every environment variable any section reads: what the docs must describe. */
export const settingVariables = (): string[] =>
  [...Object.values(SECTIONS), ...challengeSections().map(([, section]) => section)].flatMap(
    (section: SettingsSection<unknown, unknown>) => variablesOf(section),
  );
