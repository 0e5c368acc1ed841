import { retiredSettingsIn } from '../config/retired.js';
import { resolveSecrets } from '../config/secrets.js';
import { ConfigError, readSection, type SettingsSection } from '../config/settings.js';
import type { Secrets, Settings } from '../config/types.js';
import {
  challengeSections,
  featureSections,
  SECTIONS,
  type FeatureSection,
  type SectionGiven,
  type Sections,
  type SectionValue,
} from './sections.js';

/**
 * Everything configured, read and checked once at start-up: the core settings with the shared secrets resolved, then
 * one field per feature section (lib/app/sections.ts), and each configured challenge's own settings
 * (ChallengeModule.settings), handed to its configure.
 */
export type Config = Omit<Settings, 'cookieKeys' | 'jwks' | 'sealingKey'> &
  Secrets &
  FeatureSettings & {
    challenges: ReadonlyMap<string, unknown>;
  };

/** Each feature section's settings, under its name in the table. */
type FeatureSettings = { readonly [K in FeatureSection]: SectionValue<Sections[K]> };

/** What code may give instead of the environment (createAgeProvider's options): core settings by name, and sections by theirs. */
export type ConfigOptions = Partial<Settings> & { [K in FeatureSection]?: SectionGiven<Sections[K]> };

/**
 * Reads every section (lib/app/sections.ts) from the environment, options winning, and resolves the shared secrets.
 * Every problem of every section is reported at once, in one ConfigError naming each variable.
 */
export async function loadConfig(
  options: ConfigOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ config: Config; warnings: string[] }> {
  const given = options as Record<string, unknown>;
  const problems: string[] = [];
  const read = <T, R>(section: SettingsSection<T, R>, from?: Partial<R>): T | undefined => {
    try {
      return readSection(section, env, from);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
      return undefined;
    }
  };
  const core = read(SECTIONS.core, options);
  // A section that is off unless configured (REDIS_URL, SMTP_URL) reads as undefined; a failed one adds its problems.
  const features = Object.fromEntries(
    featureSections().map(([name, section]) => [name, read(section, given[name] as Partial<unknown>)]),
  ) as FeatureSettings;
  const challenges = new Map(challengeSections().map(([name, section]) => [name, read(section)]));
  if (!core || problems.length > 0) throw new ConfigError(problems);
  let secrets;
  try {
    secrets = await resolveSecrets(core);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const { cookieKeys: _c, jwks: _j, sealingKey: _s, ...rest } = core;
  return { config: { ...rest, ...secrets, ...features, challenges }, warnings: retiredSettingsIn(env) };
}
